import AddRoundedIcon from '@mui/icons-material/AddRounded';
import BalanceRoundedIcon from '@mui/icons-material/BalanceRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import { Alert, Box, Button, IconButton, MenuItem, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { parseRatio } from '../../rules';
import { rebalance, rowKey } from '../model';
import type { StepProps } from './types';

/** Senders with ratios (spec 3 campaignsSenders); none means the stream's own sender. */
export const SendersStep = ({ v, set, errors, lookups, ratiosOnly }: StepProps) => {
  const translate = useTranslate();
  const rows = v.senders;
  const total = rows.reduce((n, r) => n + (Number.isNaN(parseRatio(r.ratio)) ? 0 : parseRatio(r.ratio)), 0);
  const update = (i: number, patch: Partial<(typeof rows)[number]>) => set({ senders: rows.map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  return (
    <Box sx={{ display: 'grid', gridTemplateColumns: 'minmax(0, 1fr)', gap: 2 }} data-testid="wizard-step-senders">
      <Typography variant="body2" color="text.secondary">{translate('campaigns.senders.intro')}</Typography>
      {errors.senders && <Alert severity="error" data-testid="senders-error">{errors.senders}</Alert>}
      {rows.length === 0 && (
        <Box sx={{ p: 2, borderRadius: '10px', border: 1, borderStyle: 'dashed', borderColor: 'divider', color: 'text.secondary', textAlign: 'center' }} data-testid="senders-none">
          {translate('campaigns.senders.none')}
        </Box>
      )}
      {rows.map((r, i) => (
        <Box key={r.key} sx={{ display: 'grid', gridTemplateColumns: '1fr 96px 40px', gap: 1.5, alignItems: 'start' }} data-testid="sender-row">
          <TextField
            select
            size="small"
            label={translate('campaigns.senders.sender')}
            value={r.sender}
            disabled={ratiosOnly}
            onChange={(e) => update(i, { sender: Number(e.target.value) })}
            error={!!errors[`senders.${i}.sender`]}
            helperText={errors[`senders.${i}.sender`] || ' '}
            slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'sender-select' } as object } }}
          >
            {lookups.senders.map((s) => (
              <MenuItem key={s.id} value={s.id} data-testid={`sender-option-${s.value}`}>
                {s.name} ({s.value}){s.approved === 1 ? '' : ` · ${translate(s.approved === 2 ? 'campaigns.senders.declined' : 'campaigns.senders.pending')}`}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            size="small"
            label={translate('campaigns.message.ratio')}
            value={r.ratio}
            onChange={(e) => update(i, { ratio: e.target.value.replace(/[^\d]/g, '').slice(0, 3) })}
            error={!!errors[`senders.${i}.ratio`]}
            slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'sender-ratio' }, input: { endAdornment: <Typography variant="body2" color="text.secondary">%</Typography> } }}
          />
          <IconButton aria-label={translate('campaigns.senders.remove')} disabled={ratiosOnly} onClick={() => set({ senders: rebalance(rows.filter((_x, j) => j !== i)) })} data-testid="sender-remove">
            <DeleteOutlineRoundedIcon fontSize="small" />
          </IconButton>
        </Box>
      ))}
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
        {!ratiosOnly && (
          <Button startIcon={<AddRoundedIcon />} onClick={() => set({ senders: rebalance([...rows, { key: rowKey(), sender: '', ratio: '0' }]) })} data-testid="add-sender">
            {translate('campaigns.senders.add')}
          </Button>
        )}
        {rows.length > 1 && (
          <Button startIcon={<BalanceRoundedIcon />} onClick={() => set({ senders: rebalance(rows) })}>
            {translate('campaigns.message.splitEvenly')}
          </Button>
        )}
        {rows.length > 0 && (
          <Typography variant="body2" color={total === 100 ? 'text.secondary' : 'error'} sx={{ ml: 'auto' }}>
            {translate('campaigns.message.ratioTotal', { total })}
          </Typography>
        )}
      </Box>
    </Box>
  );
};
