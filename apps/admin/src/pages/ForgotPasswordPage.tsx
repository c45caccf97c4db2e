import { Button, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import { AuthLayout } from '../ui/AuthLayout';

/** Target of the login page's forgot-password link; the reset flow itself is a later issue. */
export const ForgotPasswordPage = () => {
  const translate = useTranslate();
  return (
    <AuthLayout>
      <Typography variant="h5" component="h1" gutterBottom>
        {translate('forgotPassword.title')}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        {translate('forgotPassword.text')}
      </Typography>
      <Button component={RouterLink} to="/login" variant="contained" fullWidth size="large">
        {translate('forgotPassword.back')}
      </Button>
    </AuthLayout>
  );
};
