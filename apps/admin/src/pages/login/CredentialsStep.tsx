import { Alert, Box, Button, Checkbox, CircularProgress, Divider, FormControlLabel, Link, TextField, Typography } from '@mui/material';
import KeyRoundedIcon from '@mui/icons-material/KeyRounded';
import { useState, type FormEvent } from 'react';
import { useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import { SSO_LOGIN_URL } from '../../constants';
import { requestLoginCode } from '../../providers/auth-provider';
import type { LoginChallenge } from '../../providers/types';
import { serverErrorText } from '../../ui/server-error';
import { email as emailRule, required, validate } from '../../ui/validation';

export interface Credentials {
  username: string;
  password: string;
  rememberMe: boolean;
}

interface Props {
  initial: Credentials;
  onCodeSent: (credentials: Credentials, challenge: LoginChallenge) => void;
}

type Field = 'username' | 'password';

/** Step 1 of spec 2's /login: email and password; on success the server has sent the PIN. */
export const CredentialsStep = ({ initial, onCodeSent }: Props) => {
  const translate = useTranslate();
  const [values, setValues] = useState<Credentials>(initial);
  const [touched, setTouched] = useState<Record<Field, boolean>>({ username: false, password: false });
  const [submitted, setSubmitted] = useState(false);
  const [loading, setLoading] = useState(false);
  const [banner, setBanner] = useState<string | null>(null);

  const errors: Record<Field, string | undefined> = {
    username: validate(values.username, required, emailRule),
    password: validate(values.password, required),
  };
  // spec 5: a field error shows once the field is touched, or after a submit
  const shown = (f: Field) => ((touched[f] || submitted) && errors[f] ? translate(errors[f]) : undefined);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (errors.username || errors.password || loading) return;
    setLoading(true);
    setBanner(null);
    try {
      const username = values.username.trim();
      const challenge = await requestLoginCode(username, values.password);
      onCodeSent({ ...values, username }, challenge);
    } catch (error) {
      setBanner(serverErrorText(error, translate));
      setLoading(false);
    }
  };

  return (
    <Box component="form" noValidate onSubmit={submit} data-testid="login-form">
      <Typography variant="h5" component="h1" gutterBottom>
        {translate('login.title')}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        {translate('login.subtitle')}
      </Typography>

      {banner && (
        <Alert severity="error" sx={{ mb: 2 }} data-testid="login-error" onClose={() => setBanner(null)}>
          {banner}
        </Alert>
      )}

      <TextField
        label={translate('login.email')}
        placeholder={translate('login.emailPlaceholder')}
        type="email"
        name="username"
        autoComplete="username"
        autoFocus
        margin="normal"
        value={values.username}
        onChange={(e) => setValues({ ...values, username: e.target.value })}
        onBlur={() => setTouched({ ...touched, username: true })}
        error={!!shown('username')}
        helperText={shown('username') ?? ' '}
        slotProps={{ htmlInput: { 'data-testid': 'login-email' } }}
      />
      <TextField
        label={translate('login.password')}
        type="password"
        name="password"
        autoComplete="current-password"
        margin="normal"
        value={values.password}
        onChange={(e) => setValues({ ...values, password: e.target.value })}
        onBlur={() => setTouched({ ...touched, password: true })}
        error={!!shown('password')}
        helperText={shown('password') ?? ' '}
        slotProps={{ htmlInput: { 'data-testid': 'login-password' } }}
      />

      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', mt: 0.5, mb: 2 }}>
        <FormControlLabel
          control={
            <Checkbox
              size="small"
              checked={values.rememberMe}
              onChange={(e) => setValues({ ...values, rememberMe: e.target.checked })}
            />
          }
          label={<Typography variant="body2">{translate('login.rememberMe')}</Typography>}
        />
        <Link component={RouterLink} to="/forgot-password" variant="body2" underline="hover" data-testid="forgot-password">
          {translate('login.forgotPassword')}
        </Link>
      </Box>

      <Button
        type="submit"
        variant="contained"
        size="large"
        fullWidth
        disabled={loading}
        data-testid="login-submit"
        startIcon={loading ? <CircularProgress size={18} color="inherit" /> : undefined}
      >
        {translate('login.submit')}
      </Button>

      <Divider sx={{ my: 3, color: 'text.secondary', fontSize: 13 }} data-testid="login-or">
        {translate('login.or')}
      </Divider>

      <Button
        href={SSO_LOGIN_URL}
        variant="outlined"
        size="large"
        fullWidth
        color="inherit"
        startIcon={<KeyRoundedIcon />}
        data-testid="login-sso"
        sx={{ borderColor: 'divider' }}
      >
        {translate('login.sso')}
      </Button>

      <Typography variant="caption" component="p" color="text.secondary" sx={{ mt: 3, textAlign: 'center', lineHeight: 1.5 }} data-testid="recaptcha-disclaimer">
        {translate('login.recaptcha')}
      </Typography>
    </Box>
  );
};
