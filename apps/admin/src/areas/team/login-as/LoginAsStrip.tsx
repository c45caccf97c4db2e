import LogoutRoundedIcon from '@mui/icons-material/LogoutRounded';
import SupervisorAccountRoundedIcon from '@mui/icons-material/SupervisorAccountRounded';
import { Box, Button, CircularProgress, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { exitLoginAs, loginAsState } from '../../../providers/auth-provider';
import { LOGIN_AS_EXIT_PATH } from '../constants';

/**
 * Spec 2: the "login as" strip at the top of the shell: the impersonated email and an exit button that restores
 * the admin's own session and goes to /users/management. The page reloads on exit, so nothing cached as the
 * impersonated user survives.
 */
export const LoginAsStrip = () => {
  const translate = useTranslate();
  const [state] = useState(loginAsState);
  const [leaving, setLeaving] = useState(false);
  if (!state) return null;

  const exit = async () => {
    setLeaving(true);
    await exitLoginAs();
    window.location.assign(LOGIN_AS_EXIT_PATH);
  };

  return (
    <Box
      role="status"
      data-testid="login-as-strip"
      sx={{
        position: 'sticky',
        top: { xs: 56, sm: 48 },
        zIndex: 2,
        mx: -3,
        mt: -3,
        mb: 3,
        px: 3,
        py: 1,
        display: 'flex',
        alignItems: 'center',
        gap: 1.5,
        flexWrap: 'wrap',
        color: '#fff',
        background: 'linear-gradient(90deg, #b45309 0%, #d97706 100%)',
        boxShadow: '0 1px 0 rgba(0,0,0,.08)',
      }}
    >
      <SupervisorAccountRoundedIcon fontSize="small" />
      <Typography variant="body2" sx={{ flex: 1, minWidth: 200 }}>
        {translate('team.loginAs.strip')}{' '}
        <Box component="strong" data-testid="login-as-email" sx={{ fontWeight: 700 }}>
          {state.email}
        </Box>
        {state.adminEmail && (
          <Box component="span" sx={{ opacity: 0.85, ml: 1, display: { xs: 'none', md: 'inline' } }}>
            {translate('team.loginAs.as', { email: state.adminEmail })}
          </Box>
        )}
      </Typography>
      <Button
        size="small"
        variant="contained"
        onClick={() => void exit()}
        disabled={leaving}
        data-testid="login-as-exit"
        startIcon={leaving ? <CircularProgress size={14} color="inherit" /> : <LogoutRoundedIcon fontSize="small" />}
        sx={{ bgcolor: 'rgba(255,255,255,.18)', color: '#fff', '&:hover': { bgcolor: 'rgba(255,255,255,.28)' }, boxShadow: 'none' }}
      >
        {translate('team.loginAs.exit')}
      </Button>
    </Box>
  );
};
