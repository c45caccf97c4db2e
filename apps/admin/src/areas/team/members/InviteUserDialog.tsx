import MailOutlineRoundedIcon from '@mui/icons-material/MailOutlineRounded';
import { Stack, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { teamApi } from '../api';
import type { Role } from '../types';
import { FormDialog } from '../../../ui/modal/FormDialog';
import { errorText, fieldErrors, messageText } from '../widgets/errors';
import { check, email as emailRule, noXss, required } from '../widgets/validation';
import { pairIds, RoleSelects, type RolePair } from './RoleSelects';

interface Props {
  open: boolean;
  roles: Role[];
  onClose: () => void;
  onInvited: () => void;
}

const empty = { email: '', firstname: '', lastname: '' };

/** The "add user" modal of spec 2: email, names, one platform role and one inbox role; the invite is emailed. */
export const InviteUserDialog = ({ open, roles, onClose, onInvited }: Props) => {
  const translate = useTranslate();
  const notify = useNotify();
  const [values, setValues] = useState(empty);
  const [pair, setPair] = useState<RolePair>({ platform: '', inbox: '' });
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [serverFields, setServerFields] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);

  useEffect(() => {
    if (open) {
      setValues(empty);
      setPair({ platform: '', inbox: '' });
      setTouched({});
      setSubmitted(false);
      setServerFields({});
      setBanner(null);
    }
  }, [open]);

  const errors: Record<string, string | undefined> = {
    email: check(values.email, required, emailRule),
    firstname: check(values.firstname, noXss),
    lastname: check(values.lastname, noXss),
    roles: pairIds(pair).length === 0 ? 'team.invite.roleRequired' : undefined,
  };
  const shown = (f: string): string | undefined => {
    if (serverFields[f]) return serverFields[f];
    const e = errors[f];
    return e && (touched[f] || submitted) ? messageText(e, translate) : undefined;
  };

  const submit = async () => {
    setSubmitted(true);
    if (Object.values(errors).some(Boolean) || busy) return;
    setBusy(true);
    setBanner(null);
    setServerFields({});
    try {
      await teamApi.createInvite({ email: values.email.trim(), firstname: values.firstname.trim(), lastname: values.lastname.trim(), user_roles_ids: pairIds(pair) });
      notify('team.invite.sent', { type: 'success', messageArgs: { email: values.email.trim() } });
      onInvited();
      onClose();
    } catch (error) {
      const fields = fieldErrors(error, translate);
      if (fields.user_roles_ids) fields.roles = fields.user_roles_ids;
      setServerFields(fields);
      if (!Object.keys(fields).length) setBanner(errorText(error, translate));
    } finally {
      setBusy(false);
    }
  };

  const field = (name: 'email' | 'firstname' | 'lastname', label: string, autoFocus = false) => (
    <TextField
      label={label}
      value={values[name]}
      autoFocus={autoFocus}
      required={name === 'email'}
      type={name === 'email' ? 'email' : 'text'}
      onChange={(e) => {
        setValues({ ...values, [name]: e.target.value });
        if (serverFields[name]) setServerFields({ ...serverFields, [name]: '' });
      }}
      onBlur={() => setTouched({ ...touched, [name]: true })}
      error={!!shown(name)}
      helperText={shown(name) ?? ' '}
      slotProps={{ htmlInput: { 'data-testid': `invite-${name}` } }}
    />
  );

  return (
    <FormDialog
      open={open}
      onClose={onClose}
      size="m"
      title={translate('team.invite.title')}
      testId="invite-dialog"
      busy={busy}
      hideCloseWhenLocked
      submitLabel={translate('team.invite.submit')}
      submitTestId="invite-submit"
      submitIcon={<MailOutlineRoundedIcon />}
      onSubmit={() => void submit()}
      formId="invite-form"
      error={banner}
      errorTestId="invite-error"
      intro={
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2.5 }}>
          {translate('team.invite.text')}
        </Typography>
      }
    >
      <Stack spacing={1}>
        {field('email', translate('team.invite.email'), true)}
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
          {field('firstname', translate('team.invite.firstName'))}
          {field('lastname', translate('team.invite.lastName'))}
        </Stack>
        <RoleSelects roles={roles} value={pair} onChange={(p) => { setPair(p); setServerFields({ ...serverFields, roles: '' }); }} error={shown('roles')} />
      </Stack>
    </FormDialog>
  );
};
