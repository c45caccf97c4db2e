import HowToRegRoundedIcon from '@mui/icons-material/HowToRegRounded';
import { Alert, Box, Button, CircularProgress, Link, Stack, TextField, Typography } from '@mui/material';
import { useState, type FormEvent } from 'react';
import { useTranslate } from 'react-admin';
import { Link as RouterLink, useLocation, useNavigate } from 'react-router-dom';
import { isApiError } from '../../../providers/http';
import { AuthLayout } from '../../../ui/AuthLayout';
import { teamApi } from '../api';
import { PASSWORD_MIN } from '../constants';
import { errorText, fieldErrors, messageText } from '../widgets/errors';
import { charLimit, check, minPassword, noXss, required, sameAs } from '../widgets/validation';
import { clearInvite, readInvite, type StoredInvite } from './invite-store';
import { InviteErrorDialog, WelcomeDialog } from './InviteDialogs';

type Field = 'firstname' | 'lastname' | 'password' | 'confirmPassword';

/** /registration (spec 2): a new user invited by email sets a name and a password, joins, then signs in. */
export const RegistrationPage = () => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const location = useLocation();
  const [invite] = useState<StoredInvite | null>(() => (location.state as StoredInvite | null)?.link ? (location.state as StoredInvite) : readInvite());
  const [values, setValues] = useState<Record<Field, string>>({
    firstname: invite?.check.firstname ?? '',
    lastname: invite?.check.lastname ?? '',
    password: '',
    confirmPassword: '',
  });
  const [touched, setTouched] = useState<Partial<Record<Field, boolean>>>({});
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [serverFields, setServerFields] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [inviteError, setInviteError] = useState<string | null>(null);
  const [welcome, setWelcome] = useState(false);

  if (!invite) {
    return (
      <AuthLayout>
        <Box data-testid="registration-no-invite">
          <Typography variant="h5" component="h1" gutterBottom>
            {translate('team.registration.title')}
          </Typography>
          <Typography color="text.secondary" sx={{ mb: 3 }}>
            {translate('team.registration.noInvite')}
          </Typography>
          <Button component={RouterLink} to="/login" variant="contained" fullWidth size="large">
            {translate('team.registration.toLogin')}
          </Button>
        </Box>
      </AuthLayout>
    );
  }

  const errors: Record<Field, string | undefined> = {
    firstname: check(values.firstname, charLimit(100), noXss),
    lastname: check(values.lastname, charLimit(100), noXss),
    password: check(values.password, required, minPassword),
    confirmPassword: check(values.confirmPassword, required, sameAs(values.password)),
  };
  const shown = (f: Field) => serverFields[f] || (errors[f] && (touched[f] || submitted) ? messageText(errors[f] as string, translate, { min: PASSWORD_MIN, limit: 100 }) : undefined);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (Object.values(errors).some(Boolean) || busy) return;
    setBusy(true);
    setBanner(null);
    setServerFields({});
    try {
      const answer = await teamApi.register({ ...invite.link, ...values, firstname: values.firstname.trim(), lastname: values.lastname.trim() });
      if (answer.status !== 1) {
        setBanner(translate('team.registration.failed'));
        return;
      }
      clearInvite();
      setWelcome(true);
    } catch (error) {
      if (isApiError(error) && (error.status === 404 || error.status === 410 || error.status === 409)) {
        setInviteError(error.body?.message ?? errorText(error, translate));
        return;
      }
      const fields = fieldErrors(error, translate);
      setServerFields(fields);
      if (!Object.keys(fields).length) setBanner(errorText(error, translate));
    } finally {
      setBusy(false);
    }
  };

  const field = (name: Field, type: 'text' | 'password', autoComplete: string, autoFocus = false) => (
    <TextField
      label={translate(`team.registration.${name}`)}
      type={type}
      value={values[name]}
      autoComplete={autoComplete}
      autoFocus={autoFocus}
      required={type === 'password'}
      onChange={(e) => {
        setValues({ ...values, [name]: e.target.value });
        if (serverFields[name]) setServerFields({ ...serverFields, [name]: '' });
      }}
      onBlur={() => setTouched({ ...touched, [name]: true })}
      error={!!shown(name)}
      helperText={shown(name) ?? (name === 'password' ? translate('team.registration.passwordHint', { min: PASSWORD_MIN }) : ' ')}
      slotProps={{ htmlInput: { 'data-testid': `registration-${name}` } }}
    />
  );

  return (
    <AuthLayout>
      <Box component="form" noValidate onSubmit={submit} data-testid="registration-form">
        <Box sx={{ width: 52, height: 52, borderRadius: '14px', display: 'grid', placeItems: 'center', bgcolor: 'primary.main', color: '#fff', mb: 2.5 }}>
          <HowToRegRoundedIcon />
        </Box>
        <Typography variant="h5" component="h1" gutterBottom>
          {translate('team.registration.join', { account: invite.check.customer.name })}
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 3 }}>
          {translate('team.registration.subtitle')}
        </Typography>
        {banner && (
          <Alert severity="error" sx={{ mb: 2 }} data-testid="registration-error">
            {banner}
          </Alert>
        )}
        <Stack spacing={1}>
          <TextField label={translate('team.registration.email')} value={invite.check.email} disabled helperText=" " slotProps={{ htmlInput: { 'data-testid': 'registration-email' } }} />
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            {field('firstname', 'text', 'given-name', !values.firstname)}
            {field('lastname', 'text', 'family-name')}
          </Stack>
          {field('password', 'password', 'new-password', !!values.firstname)}
          {field('confirmPassword', 'password', 'new-password')}
        </Stack>
        <Button
          type="submit"
          variant="contained"
          size="large"
          fullWidth
          disabled={busy}
          data-testid="registration-submit"
          sx={{ mt: 1 }}
          startIcon={busy ? <CircularProgress size={18} color="inherit" /> : undefined}
        >
          {translate('team.registration.submit')}
        </Button>
        <Typography variant="body2" color="text.secondary" sx={{ mt: 3, textAlign: 'center' }}>
          {translate('team.registration.haveAccount')}{' '}
          <Link component={RouterLink} to="/login" underline="hover">
            {translate('team.registration.toLogin')}
          </Link>
        </Typography>
      </Box>
      <InviteErrorDialog open={!!inviteError} subtitle={inviteError ?? ''} />
      <WelcomeDialog open={welcome} account={invite.check.customer.name} userType="newly-registered" onContinue={() => navigate('/login', { replace: true })} />
    </AuthLayout>
  );
};
