import LockResetRoundedIcon from '@mui/icons-material/LockResetRounded';
import MarkEmailReadOutlinedIcon from '@mui/icons-material/MarkEmailReadOutlined';
import { Alert, Box, Button, CircularProgress, TextField, Typography } from '@mui/material';
import { useState, type FormEvent } from 'react';
import { useTranslate } from 'react-admin';
import { teamApi } from '../api';
import { errorText, fieldErrors, messageText } from '../widgets/errors';
import { check, email as emailRule, required } from '../widgets/validation';
import { BackToLogin, IconTile } from './password-ui';

/**
 * /forgot-password (spec 2 and 7): POST /api/users/reset_password/send_email. The answer is the same whether or not
 * the address has an account, and so is the confirmation shown.
 */
export const ForgotPasswordForm = () => {
  const translate = useTranslate();
  const [value, setValue] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  const [banner, setBanner] = useState<string | null>(null);
  const error = check(value, required, emailRule);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (error || busy) return;
    setBusy(true);
    setBanner(null);
    try {
      await teamApi.sendResetEmail(value.trim());
      setSent(value.trim());
    } catch (err) {
      const fields = fieldErrors(err, translate);
      setBanner(fields.email ?? errorText(err, translate));
    } finally {
      setBusy(false);
    }
  };

  if (sent) {
    return (
      <Box data-testid="forgot-password-sent">
        <IconTile>
          <MarkEmailReadOutlinedIcon />
        </IconTile>
        <Typography variant="h5" component="h1" gutterBottom>
          {translate('team.forgotPassword.sentTitle')}
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 3 }}>
          {translate('team.forgotPassword.sentText', { email: sent })}
        </Typography>
        <Button variant="outlined" fullWidth size="large" onClick={() => setSent(null)}>
          {translate('team.forgotPassword.again')}
        </Button>
        <BackToLogin />
      </Box>
    );
  }

  return (
    <Box component="form" noValidate onSubmit={submit} data-testid="forgot-password-form">
      <IconTile>
        <LockResetRoundedIcon />
      </IconTile>
      <Typography variant="h5" component="h1" gutterBottom>
        {translate('team.forgotPassword.title')}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        {translate('team.forgotPassword.text')}
      </Typography>
      {banner && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {banner}
        </Alert>
      )}
      <TextField
        label={translate('team.forgotPassword.email')}
        type="email"
        autoComplete="username"
        autoFocus
        value={value}
        onChange={(e) => setValue(e.target.value)}
        error={submitted && !!error}
        helperText={submitted && error ? messageText(error, translate) : ' '}
        slotProps={{ htmlInput: { 'data-testid': 'forgot-email' } }}
      />
      <Button type="submit" variant="contained" size="large" fullWidth disabled={busy} sx={{ mt: 1 }} data-testid="forgot-submit" startIcon={busy ? <CircularProgress size={18} color="inherit" /> : undefined}>
        {translate('team.forgotPassword.submit')}
      </Button>
      <BackToLogin />
    </Box>
  );
};

