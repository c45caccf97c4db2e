import { Alert, Autocomplete, Box, Button, CircularProgress, FormControlLabel, Stack, Switch, TextField } from '@mui/material';
import { useEffect, useState, type FormEvent } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { AppModal } from '../../ui/modal/AppModal';
import { errorText, fieldErrors, messageText } from '../team/widgets/errors';
import { useApi } from '../../ui/useApi';
import { charLimit, check, noXss, required } from '../team/widgets/validation';
import { superAdminApi } from './api';

const FALLBACK_CURRENCIES = ['EUR', 'USD'];

/** A new account (POST /api/customers, super admin): name, short name, currency (fixed afterwards), TPS, approved. */
export const NewAccountDialog = ({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: () => void }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const currencies = useApi(() => superAdminApi.currencies(), [], open);
  const [values, setValues] = useState({ name: '', shortName: '', currency: 'EUR', tps: '10', approved: true });
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [serverFields, setServerFields] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);

  useEffect(() => {
    if (open) {
      setValues({ name: '', shortName: '', currency: 'EUR', tps: '10', approved: true });
      setSubmitted(false);
      setServerFields({});
      setBanner(null);
    }
  }, [open]);

  const codes = currencies.data?.items.map((o) => o.value) ?? FALLBACK_CURRENCIES;
  const errors: Record<string, string | undefined> = {
    name: check(values.name, required, charLimit(255), noXss),
    shortName: check(values.shortName, charLimit(32), noXss),
    tps: /^\d+$/.test(values.tps) && Number(values.tps) <= 100000 ? undefined : 'errors.client.digits',
  };
  const shown = (f: string) => serverFields[f] || (errors[f] && submitted ? messageText(errors[f] as string, translate, { limit: f === 'name' ? 255 : 32 }) : undefined);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (Object.values(errors).some(Boolean) || busy) return;
    setBusy(true);
    setBanner(null);
    try {
      const created = await superAdminApi.create({ name: values.name.trim(), shortName: values.shortName.trim() || undefined, currency: values.currency, tps: Number(values.tps), active: values.approved ? 1 : 0 });
      notify('superadmin.create.done', { type: 'success', messageArgs: { name: created.name } });
      onCreated();
      onClose();
    } catch (error) {
      const fields = fieldErrors(error, translate);
      setServerFields(fields);
      if (!Object.keys(fields).length) setBanner(errorText(error, translate));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AppModal
      open={open}
      onClose={onClose}
      title={translate('superadmin.create.title')}
      size="m"
      testId="new-account-dialog"
      dismissible={!busy}
      hideCloseWhenLocked
      actions={
        <>
          <Button color="inherit" onClick={onClose} disabled={busy}>
            {translate('team.actions.cancel')}
          </Button>
          <Button type="submit" form="new-account" variant="contained" disabled={busy} data-testid="new-account-submit" startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined}>
            {translate('superadmin.create.submit')}
          </Button>
        </>
      }
    >
      <Box component="form" id="new-account" noValidate onSubmit={submit}>
        {banner && (
          <Alert severity="error" sx={{ mb: 2 }}>
            {banner}
          </Alert>
        )}
        <Stack spacing={1}>
          <TextField label={translate('superadmin.fields.name')} value={values.name} autoFocus required onChange={(e) => setValues({ ...values, name: e.target.value })} error={!!shown('name')} helperText={shown('name') ?? ' '} slotProps={{ htmlInput: { 'data-testid': 'new-account-name' } }} />
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            <TextField label={translate('superadmin.fields.shortName')} value={values.shortName} onChange={(e) => setValues({ ...values, shortName: e.target.value })} error={!!shown('shortName')} helperText={shown('shortName') ?? translate('superadmin.create.shortNameHint')} />
            <Autocomplete
              options={codes}
              value={values.currency}
              disableClearable
              onChange={(_e, v) => setValues({ ...values, currency: v })}
              fullWidth
              renderInput={(params) => <TextField {...params} label={translate('superadmin.fields.currency')} helperText={serverFields.currency || translate('superadmin.create.currencyHint')} error={!!serverFields.currency} />}
            />
            <TextField label={translate('superadmin.fields.tps')} value={values.tps} onChange={(e) => setValues({ ...values, tps: e.target.value })} error={!!shown('tps')} helperText={shown('tps') ?? ' '} sx={{ maxWidth: { sm: 120 } }} />
          </Stack>
          <FormControlLabel
            control={<Switch checked={values.approved} onChange={(e) => setValues({ ...values, approved: e.target.checked })} slotProps={{ input: { 'data-testid': 'new-account-approved' } as object }} />}
            label={translate('superadmin.create.approved')}
          />
        </Stack>
      </Box>
    </AppModal>
  );
};
