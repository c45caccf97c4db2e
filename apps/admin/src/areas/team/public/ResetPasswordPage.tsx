import LinkOffRoundedIcon from '@mui/icons-material/LinkOffRounded';
import LockResetRoundedIcon from '@mui/icons-material/LockResetRounded';
import TaskAltRoundedIcon from '@mui/icons-material/TaskAltRounded';
import { Alert, Box, Button, CircularProgress, Stack, TextField, Typography } from '@mui/material';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslate } from 'react-admin';
import { Link as RouterLink, useParams } from 'react-router-dom';
import { AuthLayout } from '../../../ui/AuthLayout';
import { teamApi } from '../api';
import { PASSWORD_MIN } from '../constants';
import { errorText, fieldErrors, messageText } from '../widgets/errors';
import { check, minPassword, required, sameAs } from '../widgets/validation';
import { BackToLogin, IconTile } from './password-ui';

/** /reset-password/:email/:token (spec 2 and 7): checks the link, then sets the new password through it, once. */
export const ResetPasswordPage = () => {
  const translate = useTranslate();
  const { email = '', token = '' } = useParams();
  const [phase, setPhase] = useState<'checking' | 'invalid' | 'form' | 'done'>('checking');
  const [values, setValues] = useState({ password: '', confirm: '' });
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [serverFields, setServerFields] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    teamApi
      .checkResetToken(email, token)
      .then((a) => setPhase(a.status === 1 ? 'form' : 'invalid'))
      .catch(() => setPhase('invalid'));
  }, [email, token]);

  const errors: Record<string, string | undefined> = {
    password: check(values.password, required, minPassword),
    confirm: check(values.confirm, required, sameAs(values.password)),
  };
  const shown = (f: 'password' | 'confirm') => serverFields[f] || (errors[f] && (submitted || (f === 'confirm' && values.confirm !== '')) ? messageText(errors[f] as string, translate, { min: PASSWORD_MIN }) : undefined);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (errors.password || errors.confirm || busy) return;
    setBusy(true);
    setBanner(null);
    try {
      const answer = await teamApi.resetPassword(email, token, values.password);
      if (answer.status === 1) setPhase('done');
      else setBanner(translate('team.resetPassword.failed'));
    } catch (err) {
      const fields = fieldErrors(err, translate);
      setServerFields(fields);
      if (!Object.keys(fields).length) {
        if ((err as { status?: number }).status === 404) setPhase('invalid');
        else setBanner(errorText(err, translate));
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthLayout>
      {phase === 'checking' && (
        <Box sx={{ textAlign: 'center', py: 4 }}>
          <CircularProgress />
        </Box>
      )}
      {phase === 'invalid' && (
        <Box data-testid="reset-invalid">
          <IconTile tone="error.main">
            <LinkOffRoundedIcon />
          </IconTile>
          <Typography variant="h5" component="h1" gutterBottom>
            {translate('team.resetPassword.invalidTitle')}
          </Typography>
          <Typography color="text.secondary" sx={{ mb: 3 }}>
            {translate('team.resetPassword.invalidText')}
          </Typography>
          <Button component={RouterLink} to="/forgot-password" variant="contained" fullWidth size="large">
            {translate('team.resetPassword.newLink')}
          </Button>
          <BackToLogin />
        </Box>
      )}
      {phase === 'done' && (
        <Box data-testid="reset-done">
          <IconTile tone="success.main">
            <TaskAltRoundedIcon />
          </IconTile>
          <Typography variant="h5" component="h1" gutterBottom>
            {translate('team.resetPassword.doneTitle')}
          </Typography>
          <Typography color="text.secondary" sx={{ mb: 3 }}>
            {translate('team.resetPassword.doneText')}
          </Typography>
          <Button component={RouterLink} to="/login" replace variant="contained" fullWidth size="large" data-testid="reset-sign-in">
            {translate('team.resetPassword.signIn')}
          </Button>
        </Box>
      )}
      {phase === 'form' && (
        <Box component="form" noValidate onSubmit={submit} data-testid="reset-form">
          <IconTile>
            <LockResetRoundedIcon />
          </IconTile>
          <Typography variant="h5" component="h1" gutterBottom>
            {translate('team.resetPassword.title')}
          </Typography>
          <Typography color="text.secondary" sx={{ mb: 3 }}>
            {translate('team.resetPassword.text', { email })}
          </Typography>
          {banner && (
            <Alert severity="error" sx={{ mb: 2 }}>
              {banner}
            </Alert>
          )}
          <Stack spacing={1}>
            <TextField
              type="password"
              label={translate('team.resetPassword.password')}
              autoComplete="new-password"
              autoFocus
              value={values.password}
              onChange={(e) => setValues({ ...values, password: e.target.value })}
              error={!!shown('password')}
              helperText={shown('password') ?? translate('team.registration.passwordHint', { min: PASSWORD_MIN })}
              slotProps={{ htmlInput: { 'data-testid': 'reset-password' } }}
            />
            <TextField
              type="password"
              label={translate('team.resetPassword.confirm')}
              autoComplete="new-password"
              value={values.confirm}
              onChange={(e) => setValues({ ...values, confirm: e.target.value })}
              error={!!shown('confirm')}
              helperText={shown('confirm') ?? ' '}
              slotProps={{ htmlInput: { 'data-testid': 'reset-confirm' } }}
            />
          </Stack>
          <Button type="submit" variant="contained" size="large" fullWidth disabled={busy} sx={{ mt: 1 }} data-testid="reset-submit" startIcon={busy ? <CircularProgress size={18} color="inherit" /> : undefined}>
            {translate('team.resetPassword.submit')}
          </Button>
          <BackToLogin />
        </Box>
      )}
    </AuthLayout>
  );
};
