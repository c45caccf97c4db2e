import { Box, CircularProgress, Typography } from '@mui/material';
import { useEffect } from 'react';
import { useTranslate } from 'react-admin';

/** The popup's last stop after Zoho (spec 2 /complete-sso): "Log in ..." and the window closes after 100 ms. */
export const COMPLETE_SSO_CLOSE_MS = 100;

export const CompleteSsoPage = () => {
  const translate = useTranslate();
  useEffect(() => {
    const timer = window.setTimeout(() => window.close(), COMPLETE_SSO_CLOSE_MS);
    return () => window.clearTimeout(timer);
  }, []);
  return (
    <Box sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center' }} data-testid="complete-sso">
      <Box sx={{ textAlign: 'center' }}>
        <CircularProgress size={28} />
        <Typography sx={{ mt: 2 }}>{translate('sso.complete.loggingIn')}</Typography>
      </Box>
    </Box>
  );
};
