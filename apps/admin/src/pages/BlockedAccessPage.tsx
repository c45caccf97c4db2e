import GppBadOutlinedIcon from '@mui/icons-material/GppBadOutlined';
import LockPersonOutlinedIcon from '@mui/icons-material/LockPersonOutlined';
import { Box, Button, CircularProgress, Paper, Stack, Typography } from '@mui/material';
import { useEffect } from 'react';
import { useLogout, useTranslate } from 'react-admin';
import { Link as RouterLink, useNavigate } from 'react-router-dom';
import { blockReason } from '../ui/account-access';
import { AuthWatcher } from '../ui/AuthWatcher';
import { Copyright } from '../ui/Copyright';
import { PageHeader } from '../ui/PageHeader';
import { useProfile } from '../ui/useProfile';

/**
 * /blocked-access (spec 2): "access denied" with contact text, or "no permission"; back-to-login logs out.
 * A user who is not blocked has nothing to see here: several accounts go to /select-account, others to /home.
 */
export const BlockedAccessPage = () => {
  const translate = useTranslate();
  const logout = useLogout();
  const navigate = useNavigate();
  const { profile } = useProfile();
  const reason = profile ? blockReason(profile) : null;
  const several = (profile?.customers.length ?? 0) > 1;

  useEffect(() => {
    if (profile && !reason) navigate(several ? '/select-account' : '/home', { replace: true });
  }, [profile, reason, several, navigate]);

  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column', bgcolor: 'background.default' }}>
      <AuthWatcher />
      <PageHeader />
      <Box component="main" sx={{ flex: 1, display: 'grid', placeItems: 'center', p: 3 }}>
        {!reason ? (
          <CircularProgress />
        ) : (
          <Paper sx={{ maxWidth: 480, p: 5, textAlign: 'center' }} data-testid={`blocked-${reason}`}>
            <Box sx={{ color: reason === 'accessDenied' ? 'error.main' : 'warning.main', mb: 2 }}>
              {reason === 'accessDenied' ? <GppBadOutlinedIcon sx={{ fontSize: 56 }} /> : <LockPersonOutlinedIcon sx={{ fontSize: 56 }} />}
            </Box>
            <Typography variant="h5" component="h1" gutterBottom>
              {translate(`blockedAccess.${reason}.title`)}
            </Typography>
            <Typography color="text.secondary" sx={{ mb: 4 }}>
              {translate(`blockedAccess.${reason}.text`)}
            </Typography>
            <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ justifyContent: 'center' }}>
              {several && (
                <Button component={RouterLink} to="/select-account" variant="outlined">
                  {translate('blockedAccess.chooseAccount')}
                </Button>
              )}
              <Button variant="contained" onClick={() => logout({}, '/login')}>
                {translate('blockedAccess.backToLogin')}
              </Button>
            </Stack>
          </Paper>
        )}
      </Box>
      <Box component="footer" sx={{ textAlign: 'center', py: 3 }}>
        <Copyright />
      </Box>
    </Box>
  );
};
