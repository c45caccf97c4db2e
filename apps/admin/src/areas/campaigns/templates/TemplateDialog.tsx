import AddRoundedIcon from '@mui/icons-material/AddRounded';
import BalanceRoundedIcon from '@mui/icons-material/BalanceRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import { Alert, Box, Button, IconButton, Paper, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import { FormDialog } from '../../../ui/modal/FormDialog';
import { parseRatio, variantsError } from '../rules';
import type { Template, TemplateVariant } from '../types';
import { clientError, errorText, fieldErrors } from '../widgets/errors';
import { VariantCounter } from '../widgets/VariantCounter';
import { rebalance, rowKey, VARIANT_COLOURS, type VariantRow } from '../wizard/model';

/** Create and edit a template: name, description and its variants (name, text, ratio, colour; spec 3 and 5). */
export const TemplateDialog = ({ open, template, onClose, onSubmit }: { open: boolean; template: Template | null; onClose: () => void; onSubmit: (body: { name: string; description: string | null; variants: TemplateVariant[] }) => Promise<void> }) => {
  const translate = useTranslate();
  const word = translate('campaigns.message.variantWord');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [rows, setRows] = useState<VariantRow[]>([]);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});

  useEffect(() => {
    if (!open) return;
    setName(template?.name ?? '');
    setDescription(template?.description ?? '');
    setRows(
      template?.variants.length
        ? template.variants.map((v, i) => ({ key: rowKey(), id: v.id, name: v.name, text: v.text, color: v.color || VARIANT_COLOURS[i % VARIANT_COLOURS.length], ratio: String(v.ratio) }))
        : [{ key: rowKey(), name: `${word} 1`, text: '', color: VARIANT_COLOURS[0], ratio: '100' }],
    );
    setTried(false);
    setError(null);
    setFields({});
  }, [open, template, word]);

  const variantsProblem = variantsError(rows.map((r) => ({ text: r.text, ratio: parseRatio(r.ratio) })));
  const nameProblem = name.trim() ? undefined : 'errors.client.required';
  const update = (i: number, patch: Partial<VariantRow>) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  const submit = async () => {
    setTried(true);
    if (variantsProblem || nameProblem) return;
    setBusy(true);
    setError(null);
    try {
      await onSubmit({
        name: name.trim(),
        description: description.trim() || null,
        variants: rows.map((r, i) => ({ ...(r.id ? { id: r.id } : {}), name: r.name.trim() || `${word} ${i + 1}`, text: r.text, ratio: parseRatio(r.ratio), color: r.color })),
      });
    } catch (e) {
      setFields(fieldErrors(e, translate));
      setError(errorText(e, translate));
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormDialog
      open={open}
      onClose={onClose}
      size="l"
      title={translate(template ? 'campaigns.templates.editTitle' : 'campaigns.templates.createTitle')}
      submitLabel={translate(template ? 'campaigns.ui.save' : 'campaigns.templates.create')}
      onSubmit={() => void submit()}
      busy={busy}
      error={error}
      testId="template-dialog"
      submitTestId="template-submit"
    >
      <Box sx={{ display: 'grid', gap: 2 }}>
        <TextField label={translate('campaigns.templates.name')} required autoFocus value={name} onChange={(e) => setName(e.target.value)} error={tried && !!(nameProblem || fields.name)} helperText={(tried && nameProblem ? clientError(nameProblem, translate) : fields.name) || ' '} slotProps={{ htmlInput: { maxLength: 255, 'data-testid': 'template-name' } }} />
        <TextField label={translate('campaigns.fields.description')} value={description} onChange={(e) => setDescription(e.target.value)} slotProps={{ htmlInput: { maxLength: 2000 } }} />
        {tried && variantsProblem && <Alert severity="error" data-testid="template-variants-error">{clientError(variantsProblem, translate)}</Alert>}
        {rows.map((r, i) => (
          <Paper key={r.key} variant="outlined" sx={{ p: 1.5, borderLeft: 4, borderLeftColor: r.color }} data-testid="template-variant">
            <Box sx={{ display: 'grid', gridTemplateColumns: '1fr 90px 40px', gap: 1.5, alignItems: 'start' }}>
              <TextField size="small" label={translate('campaigns.message.variantName')} value={r.name} onChange={(e) => update(i, { name: e.target.value })} slotProps={{ htmlInput: { 'data-testid': 'template-variant-name' } }} />
              <TextField size="small" label={translate('campaigns.message.ratio')} value={r.ratio} onChange={(e) => update(i, { ratio: e.target.value.replace(/[^\d]/g, '').slice(0, 3) })} slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'template-variant-ratio' } }} />
              <IconButton aria-label={translate('campaigns.message.removeVariant')} disabled={rows.length <= 1} onClick={() => setRows((rs) => rebalance(rs.filter((_x, j) => j !== i)))}>
                <DeleteOutlineRoundedIcon fontSize="small" />
              </IconButton>
            </Box>
            <TextField fullWidth multiline minRows={2} sx={{ mt: 1.5 }} label={translate('campaigns.message.text')} value={r.text} onChange={(e) => update(i, { text: e.target.value })} error={tried && !r.text.trim()} slotProps={{ htmlInput: { 'data-testid': 'template-variant-text' } }} />
            <Box sx={{ mt: 0.75 }}>
              <VariantCounter text={r.text} maxLengths={{}} />
            </Box>
          </Paper>
        ))}
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
          <Button startIcon={<AddRoundedIcon />} onClick={() => setRows((rs) => rebalance([...rs, { key: rowKey(), name: `${word} ${rs.length + 1}`, text: '', color: VARIANT_COLOURS[rs.length % VARIANT_COLOURS.length], ratio: '0' }]))} data-testid="template-add-variant">
            {translate('campaigns.message.addVariant')}
          </Button>
          <Button startIcon={<BalanceRoundedIcon />} onClick={() => setRows((rs) => rebalance(rs))}>
            {translate('campaigns.message.splitEvenly')}
          </Button>
          <Typography variant="body2" color="text.secondary" sx={{ ml: 'auto' }}>
            {translate('campaigns.message.ratioTotal', { total: rows.reduce((n, r) => n + (Number.isNaN(parseRatio(r.ratio)) ? 0 : parseRatio(r.ratio)), 0) })}
          </Typography>
        </Box>
      </Box>
    </FormDialog>
  );
};
