import BadgeRoundedIcon from '@mui/icons-material/BadgeRounded';
import { Alert, Autocomplete, Box, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { useEffect, useMemo, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { isApiError } from '../../../providers/http';
import { streamsApi } from '../api';
import { NAME_LIMIT, SENDER_ALPHA_MAX, SENDER_ID_MIN, SENDER_NUMERIC_MAX, SENDER_TYPES } from '../constants';
import { charLimit, check, isNumericSender, noXss, required, senderId } from '../rules';
import type { Sender, SenderInput } from '../types';
import { FormDialog } from '../../../ui/modal/FormDialog';
import { errorText, fieldErrors, messageText } from '../widgets/errors';
import { useApi } from '../../../ui/useApi';

interface Props {
  open: boolean;
  sender: Sender | null;
  onClose: () => void;
  onSaved: (sender: Sender) => void;
}

const empty: SenderInput = { name: '', value: '', type: SENDER_TYPES[0], country: null };

/**
 * The add-sender modal of spec 2 and 5: a name (required, not blank) and a sender ID (alphanumeric 3..11 or numeric
 * up to 15 digits: alphaMin, alphaMax, numericMax); an ID the account already has is the field error senderExists.
 */
export const SenderDialog = ({ open, sender, onClose, onSaved }: Props) => {
  const translate = useTranslate();
  const notify = useNotify();
  const [values, setValues] = useState<SenderInput>(empty);
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [serverFields, setServerFields] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const countries = useApi(() => streamsApi.countries(), [], open);

  useEffect(() => {
    if (!open) return;
    setValues(sender ? { name: sender.name, value: sender.value, type: sender.type, country: sender.country } : empty);
    setTouched({});
    setSubmitted(false);
    setServerFields({});
    setBanner(null);
  }, [open, sender]);

  const errors = {
    name: check(values.name, required, charLimit(NAME_LIMIT), noXss),
    value: check(values.value, required, senderId),
  };
  const limits = { min: SENDER_ID_MIN, limit: NAME_LIMIT, max: isNumericSender(values.value) ? SENDER_NUMERIC_MAX : SENDER_ALPHA_MAX };
  // Spec 5: field errors show when the field is touched and invalid, or on a submit error.
  const shown = (f: 'name' | 'value') => serverFields[f] || ((touched[f] || submitted) && errors[f] ? messageText(errors[f] as string, translate, limits) : undefined);

  const numeric = isNumericSender(values.value);
  const length = numeric ? values.value.trim().replace(/^\+/, '').length : values.value.trim().length;
  const options = useMemo(() => countries.data?.items ?? [], [countries.data]);
  const country = options.find((c) => c.iso2 === values.country) ?? null;

  const submit = async () => {
    setSubmitted(true);
    if (errors.name || errors.value || busy) return;
    setBusy(true);
    setBanner(null);
    setServerFields({});
    try {
      const body = { ...values, name: values.name.trim(), value: values.value.trim() };
      const saved = sender ? await streamsApi.updateSender(sender.id, body) : await streamsApi.createSender(body);
      onSaved(saved);
    } catch (error) {
      const fields = fieldErrors(error, translate, limits);
      if (isApiError(error) && error.status === 409 && !fields.value) fields.value = translate('streams.modalAddSender.senderExists');
      setServerFields(fields);
      if (!fields.name && !fields.value) {
        setBanner(errorText(error, translate));
        if (!sender) notify('streams.notification.senders.addedFailed', { type: 'error' });
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormDialog
      open={open}
      onClose={onClose}
      size="s"
      icon={<BadgeRoundedIcon fontSize="small" />}
      title={translate(sender ? 'streams.modalAddSender.editTitle' : 'streams.modalAddSender.title')}
      testId="sender-dialog"
      busy={busy}
      submitLabel={translate(sender ? 'streams.ui.save' : 'streams.modalAddSender.submit')}
      submitTestId="sender-submit"
      onSubmit={() => void submit()}
      formId="sender-form"
      error={banner}
      errorTestId="sender-error"
    >
      <Stack spacing={1}>
        <TextField
          label={translate('streams.modalAddSender.name')}
          value={values.name}
          required
          autoFocus
          placeholder={translate('streams.modalAddSender.namePlaceholder')}
          onChange={(e) => setValues({ ...values, name: e.target.value })}
          onBlur={() => setTouched((t) => ({ ...t, name: true }))}
          error={!!shown('name')}
          helperText={shown('name') ?? ' '}
          slotProps={{ htmlInput: { 'data-testid': 'sender-name' } }}
        />
        <TextField
          label={translate('streams.modalAddSender.senderId')}
          value={values.value}
          required
          placeholder="ACME"
          onChange={(e) => {
            setValues({ ...values, value: e.target.value });
            if (serverFields.value) setServerFields((f) => ({ ...f, value: '' }));
          }}
          onBlur={() => setTouched((t) => ({ ...t, value: true }))}
          error={!!shown('value')}
          helperText={
            shown('value') ?? (
              <Box component="span" sx={{ display: 'flex', justifyContent: 'space-between', gap: 1 }}>
                <span>{translate(numeric ? 'streams.modalAddSender.numericHint' : 'streams.modalAddSender.alphaHint', limits)}</span>
                <span data-testid="sender-id-count">
                  {length}/{limits.max}
                </span>
              </Box>
            )
          }
          slotProps={{ htmlInput: { 'data-testid': 'sender-value', style: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' } } }}
        />
        <TextField select label={translate('streams.modalAddSender.type')} value={values.type} onChange={(e) => setValues({ ...values, type: e.target.value })} helperText=" " slotProps={{ htmlInput: { 'data-testid': 'sender-type' } }}>
          {SENDER_TYPES.map((t) => (
            <MenuItem key={t} value={t}>
              {translate(`streams.senderType.${t}`)}
            </MenuItem>
          ))}
        </TextField>
        <Autocomplete
          options={options}
          value={country}
          loading={countries.loading}
          onChange={(_e, c) => setValues({ ...values, country: c?.iso2 ?? null })}
          getOptionLabel={(c) => `${c.name} (${c.iso2})`}
          isOptionEqualToValue={(a, b) => a.iso2 === b.iso2}
          renderInput={(params) => <TextField {...params} label={translate('streams.modalAddSender.country')} helperText={translate('streams.modalAddSender.countryHint')} />}
        />
      </Stack>
      {!sender && (
        <Alert severity="info" variant="outlined" sx={{ mt: 2, borderColor: 'divider' }}>
          <Typography variant="body2">{translate('streams.modalAddSender.approvalNote')}</Typography>
        </Alert>
      )}
    </FormDialog>
  );
};
