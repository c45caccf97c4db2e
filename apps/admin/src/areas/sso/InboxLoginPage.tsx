import { Box, CircularProgress, Typography } from '@mui/material';
import { useEffect } from 'react';
import { useTranslate } from 'react-admin';
import { useNavigate, useParams } from 'react-router-dom';
import { adoptTokens } from '../../providers';
import { readTokens } from '../../providers/token-store';

/**
 * /inbox-login/:loginToken?/:refreshToken? (spec 2, a lazy page): logs into the inbox with the given tokens, or with
 * the session already here; the address is replaced, so the tokens do not stay in the history.
 */
export const InboxLoginPage = () => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const { loginToken, refreshToken } = useParams();
  useEffect(() => {
    if (!readTokens() && !loginToken) {
      void navigate('/login', { replace: true });
      return;
    }
    if (loginToken) adoptTokens({ token: loginToken, refresh_token: refreshToken ?? '' });
    // a fresh load into the inbox: the shell checked this tab's session (maybe none) on the way in and would keep that
    window.location.replace('/inbox');
  }, [loginToken, refreshToken, navigate]);
  return (
    <Box sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center' }} data-testid="inbox-login">
      <Box sx={{ textAlign: 'center' }}>
        <CircularProgress size={28} />
        <Typography sx={{ mt: 2 }}>{translate('sso.inboxLogin.opening')}</Typography>
      </Box>
    </Box>
  );
};
