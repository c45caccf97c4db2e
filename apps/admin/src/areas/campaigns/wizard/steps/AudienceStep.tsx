import GroupsRoundedIcon from '@mui/icons-material/GroupsRounded';
import { Autocomplete, Box, Checkbox, Chip, FormControlLabel, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import type { ContactList } from '../../../contacts/types';
import { formatNumber } from '../../widgets/format';
import { Alert } from '@mui/material';
import { CampaignEstimates } from '../../page/CampaignEstimates';
import type { StepProps } from './types';

/** Audience: lists and segments with their live count, the cost per country and the unreachable time zones. */
export const AudienceStep = ({ v, set, errors, lookups, saved }: StepProps & { saved?: { id: number; version: string } }) => {
  const translate = useTranslate();
  const locale = translate('campaigns.locale');
  const selected = v.contactLists.map((id) => lookups.lists.find((l) => l.id === id)).filter((l): l is ContactList => !!l);
  const count = selected.reduce((n, l) => n + (l.numOfContacts ?? 0), 0);
  return (
    <Box sx={{ display: 'grid', gridTemplateColumns: 'minmax(0, 1fr)', gap: 2.5 }} data-testid="wizard-step-audience">
      <Autocomplete<ContactList, true>
        multiple
        options={lookups.lists}
        value={selected}
        onChange={(_e, next) => set({ contactLists: next.map((l) => l.id) })}
        getOptionLabel={(l) => l.name}
        isOptionEqualToValue={(a, b) => a.id === b.id}
        renderOption={(props, l) => {
          const { key, ...rest } = props as typeof props & { key: string };
          return (
            <li key={key} {...rest} data-testid="list-option">
              <Box sx={{ display: 'flex', width: '100%', gap: 1, alignItems: 'center' }}>
                <Box sx={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere' }}>{l.name}</Box>
                <Typography variant="caption" color="text.secondary">
                  {translate(`campaigns.audience.listType.${l.type === 'segment' ? 'segment' : 'list'}`)} · {formatNumber(l.numOfContacts ?? 0, locale)}
                </Typography>
              </Box>
            </li>
          );
        }}
        renderValue={(items, getItemProps) => items.map((l, index) => { const { key, ...p } = getItemProps({ index }); return <Chip key={key} {...p} size="small" label={l.name} />; })}
        noOptionsText={translate('campaigns.audience.noLists')}
        renderInput={(params) => (
          <TextField {...params} label={translate('campaigns.fields.contactLists')} required error={!!errors.contactLists} helperText={errors.contactLists || ' '} slotProps={{ htmlInput: { ...params.inputProps, 'data-testid': 'campaign-lists' } }} />
        )}
      />
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, p: 1.75, borderRadius: '10px', bgcolor: '#f5f7ff', border: 1, borderColor: '#e0e7ff' }}>
        <GroupsRoundedIcon color="primary" />
        <Box>
          <Typography variant="caption" color="text.secondary" sx={{ fontWeight: 600, textTransform: 'uppercase', letterSpacing: '.04em' }}>
            {translate('campaigns.audience.count')}
          </Typography>
          <Typography sx={{ fontSize: 22, fontWeight: 700, lineHeight: 1.2, fontVariantNumeric: 'tabular-nums' }} data-testid="audience-count">
            {formatNumber(count, locale)}
          </Typography>
        </Box>
      </Box>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', columnGap: 3 }}>
        <FormControlLabel control={<Checkbox checked={v.sendDuplicates} onChange={(e) => set({ sendDuplicates: e.target.checked })} />} label={translate('campaigns.fields.sendDuplicates')} />
        <FormControlLabel control={<Checkbox checked={v.unsubscribeAutoAdd} onChange={(e) => set({ unsubscribeAutoAdd: e.target.checked })} />} label={translate('campaigns.fields.unsubscribeAutoAdd')} />
      </Box>
      {saved ? <CampaignEstimates campaignId={saved.id} version={saved.version} flat /> : <Alert severity="info" data-testid="estimates-after-save">{translate('campaigns.audience.afterSave')}</Alert>}
    </Box>
  );
};
