import { Box, FormControlLabel, MenuItem, Switch, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { contactsApi } from '../api';
import { VARIABLE_NAME, VARIABLE_TYPES } from '../constants';
import type { Variable, VariableInput } from '../types';
import { FormDialog } from '../../../ui/modal/FormDialog';
import { errorText, fieldErrors } from '../widgets/errors';

const EMPTY: VariableInput = { name: '', UIname: '', type: 'text', hidden: false, example: '' };

/** Create or edit a custom contact field (spec 3 "Variable": name, type, hidden, UIname, example). */
export const VariableDialog = ({ open, variable, existing, onClose, onSaved }: { open: boolean; variable: Variable | null; existing: Variable[]; onClose: () => void; onSaved: () => void }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const [form, setForm] = useState<VariableInput>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const [nameTouched, setNameTouched] = useState(false);

  useEffect(() => {
    if (!open) return;
    setForm(variable ? { name: variable.name, UIname: variable.UIname, type: variable.type, hidden: variable.hidden, example: variable.example ?? '' } : EMPTY);
    setErrors({});
    setNameTouched(!!variable);
  }, [open, variable]);

  const set = <K extends keyof VariableInput>(k: K, v: VariableInput[K]) => {
    setForm((f) => ({ ...f, [k]: v }));
    setErrors((e) => ({ ...e, [k]: '' }));
  };

  /** The code name follows the display name until it is typed by hand: "Promo code" -> promo_code. */
  const fromLabel = (label: string) =>
    label
      .normalize('NFKD')
      .replace(/[^\w\s]/g, '')
      .trim()
      .replace(/\s+/g, '_')
      .replace(/^[^A-Za-z]+/, '')
      .slice(0, 64);

  const validate = (): Record<string, string> => {
    const out: Record<string, string> = {};
    if (!form.UIname.trim()) out.UIname = translate('contacts.errors.client.required');
    if (!form.name.trim()) out.name = translate('contacts.errors.client.required');
    else if (!VARIABLE_NAME.test(form.name)) out.name = translate('contacts.errors.client.invalidKey');
    else if (existing.some((v) => v.id !== variable?.id && v.name.toLowerCase() === form.name.toLowerCase())) out.name = translate('contacts.errors.client.uniqVarName');
    return out;
  };

  const save = async () => {
    const problems = validate();
    setErrors(problems);
    if (Object.values(problems).some(Boolean)) return;
    setSaving(true);
    try {
      const body = { ...form, UIname: form.UIname.trim(), example: form.example?.trim() || null };
      if (variable) await contactsApi.updateVariable(variable.id, body);
      else await contactsApi.createVariable(body);
      notify(variable ? 'contacts.variables.updated' : 'contacts.variables.created', { type: 'success' });
      onSaved();
      onClose();
    } catch (e) {
      const fields = fieldErrors(e, translate);
      setErrors(fields);
      if (!Object.keys(fields).length) notify(errorText(e, translate), { type: 'error' });
    } finally {
      setSaving(false);
    }
  };

  return (
    <FormDialog
      open={open}
      onClose={onClose}
      busy={saving}
      size="m"
      testId="variable-dialog"
      title={translate(variable ? 'contacts.variables.editTitle' : 'contacts.variables.createTitle')}
      submitLabel={translate(variable ? 'contacts.actions.saveChanges' : 'contacts.variables.create')}
      submitTestId="variable-save"
      onSubmit={() => void save()}
      formId="variable-form"
      formSx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2, pt: 0.5 }}
    >
      <TextField
        label={translate('contacts.variables.fields.UIname')}
        value={form.UIname}
        required
        autoFocus
        onChange={(e) => {
          set('UIname', e.target.value);
          if (!nameTouched) set('name', fromLabel(e.target.value));
        }}
        error={!!errors.UIname}
        helperText={errors.UIname || translate('contacts.variables.hints.UIname')}
        inputProps={{ maxLength: 100, 'data-testid': 'variable-uiname' }}
      />
      <TextField
        label={translate('contacts.variables.fields.name')}
        value={form.name}
        required
        onChange={(e) => {
          setNameTouched(true);
          set('name', e.target.value);
        }}
        error={!!errors.name}
        helperText={errors.name || translate('contacts.variables.hints.name')}
        inputProps={{ maxLength: 64, 'data-testid': 'variable-name', style: { fontFamily: 'ui-monospace, monospace' } }}
      />
      <TextField select label={translate('contacts.variables.fields.type')} value={form.type} onChange={(e) => set('type', e.target.value)} error={!!errors.type} helperText={errors.type || ' '}>
        {VARIABLE_TYPES.map((t) => (
          <MenuItem key={t} value={t}>
            {translate(`contacts.variables.types.${t}`)}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        label={translate('contacts.variables.fields.example')}
        value={form.example ?? ''}
        onChange={(e) => set('example', e.target.value)}
        error={!!errors.example}
        helperText={errors.example || translate('contacts.variables.hints.example')}
        inputProps={{ maxLength: 255 }}
      />
      <Box sx={{ gridColumn: '1 / -1', p: 1.5, border: 1, borderColor: 'divider', borderRadius: '10px' }}>
        <FormControlLabel control={<Switch checked={form.hidden} onChange={(e) => set('hidden', e.target.checked)} />} label={translate('contacts.variables.fields.hidden')} />
        <Typography variant="body2" color="text.secondary" sx={{ ml: 6, mt: -0.5 }}>
          {translate('contacts.variables.hints.hidden')}
        </Typography>
      </Box>
      <button type="submit" hidden />
    </FormDialog>
  );
};
