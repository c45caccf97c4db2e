import { Autocomplete, FormControlLabel, Stack, Switch, TextField } from '@mui/material';
import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { FormDialog } from '../../ui/modal/FormDialog';
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

  const submit = async () => {
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
    <FormDialog
      open={open}
      onClose={onClose}
      title={translate('superadmin.create.title')}
      size="m"
      testId="new-account-dialog"
      busy={busy}
      hideCloseWhenLocked
      submitLabel={translate('superadmin.create.submit')}
      submitTestId="new-account-submit"
      onSubmit={() => void submit()}
      formId="new-account"
      error={banner}
    >
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
    </FormDialog>
  );
};
