import ErrorOutlineRoundedIcon from '@mui/icons-material/ErrorOutlineRounded';
import HourglassTopRoundedIcon from '@mui/icons-material/HourglassTopRounded';
import { Alert, Box, Button, CircularProgress, Stack, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { adoptTokens, isApiError } from '../../providers';
import { readTokens } from '../../providers/token-store';
import { AuthLayout } from '../../ui/AuthLayout';
import { awaitCompleteSso, ssoApi } from './api';

type Phase = 'login' | 'waiting' | 'pending' | 'error' | 'success';

/**
 * /zoho-sso (spec 2, spec 4 "SSO popup"): a button starts the sign-on in a popup at Zoho; the page waits on the
 * gateway's socket for complete-sso: the tokens (then /inbox-login), pending ("Pending for access approval ..."), or an
 * error ("Error occurred"). Already signed in: straight to /inbox-login.
 */
export const ZohoSsoPage = () => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const [phase, setPhase] = useState<Phase>('login');
  const [detail, setDetail] = useState<string | null>(null);
  const cancel = useRef<(() => void) | null>(null);

  useEffect(() => {
    if (readTokens()) void navigate('/inbox-login', { replace: true });
    return () => cancel.current?.();
  }, [navigate]);

  const fail = (message: string | null) => {
    setDetail(message);
    setPhase('error');
  };

  const start = async () => {
    // opened within the click, so pop-up blockers let it through; it goes to Zoho once the socket is listening
    const popup = window.open('about:blank', 'zoho-sso', 'popup,width=560,height=720');
    if (!popup) return fail(translate('sso.zoho.popupBlocked'));
    setDetail(null);
    setPhase('waiting');
    try {
      const started = await ssoApi.start();
      let opened!: () => void;
      const open = new Promise<void>((r) => (opened = r));
      const channel = awaitCompleteSso(started.cross_key, () => opened());
      cancel.current = channel.cancel;
      const first = await Promise.race([open.then(() => null), channel.done]);
      if (first) {
        popup.close();
        return finish(first);
      }
      popup.location.href = started.url;
      finish(await channel.done);
      if (!popup.closed) popup.close();
    } catch (e) {
      popup.close();
      fail(isApiError(e) && e.status === 503 ? translate('sso.zoho.notConfigured') : e instanceof Error ? e.message : null);
    }
  };

  const finish = (data: Awaited<ReturnType<typeof awaitCompleteSso>['done']>) => {
    cancel.current = null;
    if (data.status === 'success') {
      adoptTokens({ token: data.token, refresh_token: data.refresh_token });
      setPhase('success');
      // a fresh load: the shell checked this tab's (absent) session on the way in and would keep that answer
      window.location.replace('/inbox-login');
    } else if (data.status === 'pending') {
      setPhase('pending');
    } else {
      fail(data.message);
    }
  };

  return (
    <AuthLayout>
      <Typography variant="h5" component="h1" gutterBottom>
        {translate('sso.zoho.title')}
      </Typography>
      {phase === 'login' && (
        <Stack spacing={3} data-testid="zoho-sso-login">
          <Typography color="text.secondary">{translate('sso.zoho.intro')}</Typography>
          <Button variant="contained" size="large" onClick={() => void start()} data-testid="zoho-sso-start">
            {translate('sso.zoho.login')}
          </Button>
        </Stack>
      )}
      {phase === 'waiting' && (
        <Stack spacing={2} alignItems="center" data-testid="zoho-sso-waiting" sx={{ py: 2 }}>
          <CircularProgress />
          <Typography color="text.secondary">{translate('sso.zoho.waiting')}</Typography>
        </Stack>
      )}
      {phase === 'success' && (
        <Stack spacing={2} alignItems="center" data-testid="zoho-sso-success" sx={{ py: 2 }}>
          <CircularProgress />
          <Typography>{translate('sso.zoho.success')}</Typography>
        </Stack>
      )}
      {phase === 'pending' && (
        <Stack spacing={2} data-testid="zoho-sso-pending">
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, color: 'warning.main' }}>
            <HourglassTopRoundedIcon />
            <Typography fontWeight={600}>{translate('sso.zoho.pending')}</Typography>
          </Box>
          <Typography color="text.secondary">{translate('sso.zoho.pendingHint')}</Typography>
          <Button variant="outlined" onClick={() => void start()} data-testid="zoho-sso-retry">
            {translate('sso.zoho.retry')}
          </Button>
        </Stack>
      )}
      {phase === 'error' && (
        <Stack spacing={2} data-testid="zoho-sso-error">
          <Alert severity="error" icon={<ErrorOutlineRoundedIcon />}>
            <Typography fontWeight={600}>{translate('sso.zoho.error')}</Typography>
            {detail && <Typography variant="body2" data-testid="zoho-sso-error-detail">{detail}</Typography>}
          </Alert>
          <Button variant="outlined" onClick={() => void start()} data-testid="zoho-sso-retry">
            {translate('sso.zoho.retry')}
          </Button>
        </Stack>
      )}
    </AuthLayout>
  );
};
