import { Autocomplete, TextField } from '@mui/material';
import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { contactsApi } from '../api';
import type { Country } from '../types';
import { FormDialog } from '../../../ui/modal/FormDialog';
import { errorText, fieldErrors } from '../widgets/errors';
import { countryName } from '../widgets/format';

/** Blocks one number (POST /api/black_lists); a national number needs its country. */
export const AddNumberDialog = ({ open, countries, onClose, onSaved }: { open: boolean; countries: Country[]; onClose: () => void; onSaved: () => void }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const locale = translate('contacts.locale');
  const [phone, setPhone] = useState('');
  const [country, setCountry] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (open) {
      setPhone('');
      setCountry(null);
      setErrors({});
    }
  }, [open]);

  const save = async () => {
    if (!phone.trim()) {
      setErrors({ phone: translate('contacts.errors.client.required') });
      return;
    }
    setSaving(true);
    try {
      await contactsApi.addBlackList({ phone: phone.trim(), country: country ?? undefined });
      notify('contacts.blacklist.addedDone', { type: 'success' });
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
      title={translate('contacts.blacklist.addTitle')}
      testId="blacklist-add-dialog"
      submitLabel={translate('contacts.blacklist.block')}
      submitTestId="blacklist-add-save"
      onSubmit={() => void save()}
      formId="blacklist-add-form"
      formSx={{ display: 'grid', gap: 2, pt: 0.5 }}
    >
      <TextField
        label={translate('contacts.blacklist.phone')}
        value={phone}
        autoFocus
        required
        onChange={(e) => {
          setPhone(e.target.value);
          setErrors({});
        }}
        error={!!errors.phone}
        helperText={errors.phone || translate('contacts.blacklist.phoneHint')}
        inputProps={{ maxLength: 64, 'data-testid': 'blacklist-phone' }}
      />
      <Autocomplete
        options={countries.map((c) => c.iso2)}
        value={country}
        onChange={(_e, v) => setCountry(v)}
        getOptionLabel={(iso) => `${countryName(iso, locale)} (${iso})`}
        renderInput={(params) => <TextField {...params} label={translate('contacts.imports.defaultCountry')} error={!!errors.country} helperText={errors.country || translate('contacts.imports.defaultCountryHint')} />}
      />
      <button type="submit" hidden />
    </FormDialog>
  );
};
