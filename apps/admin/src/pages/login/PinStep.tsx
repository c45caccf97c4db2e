import ArrowBackRoundedIcon from '@mui/icons-material/ArrowBackRounded';
import MarkEmailReadOutlinedIcon from '@mui/icons-material/MarkEmailReadOutlined';
import { Alert, Box, Button, CircularProgress, Link, Typography } from '@mui/material';
import { useEffect, useRef, useState, type MouseEvent } from 'react';
import { useAuthProvider, useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { PIN_DELAY_MS, RESEND_COUNTDOWN_S, SUPPORT_URL } from '../../constants';
import { fetchProfile, requestLoginCode, type LoginParams } from '../../providers/auth-provider';
import { isApiError } from '../../providers/http';
import type { LoginChallenge } from '../../providers/types';
import { serverErrorText } from '../../ui/server-error';
import { VerificationCodeInput, type VerificationStatus } from '../../ui/VerificationCodeInput';
import type { Credentials } from './CredentialsStep';

interface Props {
  credentials: Credentials;
  challenge: LoginChallenge;
  onBack: () => void;
}

const emptyCode = (length: number) => Array.from({ length }, () => '');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where a fresh login lands (spec 4): the account picker when the user has several accounts, else /home. */
export const landingPath = (accounts: number) => (accounts > 1 ? '/select-account' : '/home');

/** Step 2 of /login: the PIN sent by email (spec 2, 4 and 5). */
export const PinStep = ({ credentials, challenge: initialChallenge, onBack }: Props) => {
  const translate = useTranslate();
  const authProvider = useAuthProvider();
  const navigate = useNavigate();
  const [challenge, setChallenge] = useState(initialChallenge);
  const length = challenge.pinLength > 0 ? challenge.pinLength : 6;
  const [code, setCode] = useState<string[]>(() => emptyCode(length));
  const [status, setStatus] = useState<VerificationStatus>('none');
  const [attempted, setAttempted] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [countdown, setCountdown] = useState(challenge.resendAfter || RESEND_COUNTDOWN_S);
  const [resetSignal, setResetSignal] = useState(0);
  const busy = useRef(false);
  const mounted = useRef(true);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  useEffect(() => {
    if (countdown <= 0) return;
    const timer = setTimeout(() => setCountdown((c) => c - 1), 1000);
    return () => clearTimeout(timer);
  }, [countdown]);

  const change = (next: string[]) => {
    setCode(next);
    // spec 4: typing resets the state to none
    if (status !== 'none') setStatus('none');
    setMessage(null);
  };

  const submit = async (digits: string[] = code) => {
    if (busy.current || !authProvider) return;
    if (digits.some((d) => d === '')) {
      setStatus('error');
      setMessage(translate('errors.client.required'));
      return;
    }
    busy.current = true;
    setAttempted(true);
    setStatus('loading');
    setMessage(null);
    try {
      const params: LoginParams = { ...credentials, pin: digits.join('') };
      await authProvider.login(params);
      setStatus('success');
      setMessage(translate('modalPhoneVerification.success'));
      await sleep(PIN_DELAY_MS);
      const profile = await fetchProfile(true);
      if (mounted.current) navigate(landingPath(profile.customers.length), { replace: true });
    } catch (error) {
      if (!mounted.current) return;
      setStatus('error');
      setMessage(
        isApiError(error) && error.status === 401 && String(error.body?.code ?? '') === '1801'
          ? translate('modalPhoneVerification.error')
          : serverErrorText(error, translate),
      );
    } finally {
      busy.current = false;
    }
  };

  const resend = async () => {
    if (countdown > 0 || status === 'loading' || status === 'resending') return;
    setStatus('resending');
    setMessage(null);
    try {
      const next = await requestLoginCode(credentials.username, credentials.password);
      setChallenge(next);
      setCode(emptyCode(next.pinLength > 0 ? next.pinLength : length));
      setCountdown(next.resendAfter || RESEND_COUNTDOWN_S);
      setStatus('none');
      setResetSignal((n) => n + 1);
    } catch (error) {
      setStatus('error');
      setMessage(serverErrorText(error, translate));
    }
  };

  const openSupport = (e: MouseEvent) => {
    // the chat widget, when the page has one; a mail link otherwise
    const chat = (window as unknown as { Intercom?: (cmd: string) => void }).Intercom;
    if (chat) {
      e.preventDefault();
      chat('show');
    }
  };

  return (
    <Box data-testid="pin-step">
      <Box
        sx={{ width: 52, height: 52, borderRadius: '14px', display: 'grid', placeItems: 'center', bgcolor: 'primary.main', color: '#fff', mb: 2.5 }}
      >
        <MarkEmailReadOutlinedIcon />
      </Box>
      <Typography variant="h5" component="h1" gutterBottom>
        {translate('pin.title')}
      </Typography>
      <Typography color="text.secondary">{translate('pin.subtitle', { length })}</Typography>
      <Typography sx={{ fontWeight: 600, mb: 0.5 }} data-testid="pin-email">
        {challenge.maskedEmail}
      </Typography>
      <Link component="button" type="button" variant="body2" underline="hover" onClick={onBack} data-testid="pin-back" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5 }}>
        <ArrowBackRoundedIcon sx={{ fontSize: 16 }} />
        {translate('pin.back')}
      </Link>

      <Box sx={{ my: 3.5 }}>
        <VerificationCodeInput
          value={code}
          onChange={change}
          onComplete={(digits) => void submit(digits)}
          onSubmit={() => void submit()}
          status={status}
          autoFocus
          resetSignal={resetSignal}
        />
      </Box>

      <Box sx={{ minHeight: 48, mb: 1 }}>
        {(status === 'loading' || status === 'resending') && (
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, color: 'text.secondary' }} data-testid="pin-progress">
            <CircularProgress size={18} />
            <Typography variant="body2">{translate(status === 'loading' ? 'pin.checking' : 'pin.resending')}</Typography>
          </Box>
        )}
        {message && (status === 'error' || status === 'success') && (
          <Alert severity={status === 'success' ? 'success' : 'error'} data-testid={status === 'success' ? 'pin-success' : 'pin-error'}>
            {message}
          </Alert>
        )}
      </Box>

      {attempted && (
        <Button
          variant="contained"
          size="large"
          fullWidth
          onClick={() => void submit()}
          disabled={status === 'loading' || status === 'success' || status === 'resending'}
          data-testid="pin-verify"
          sx={{ mb: 1.5 }}
        >
          {translate('pin.verify')}
        </Button>
      )}
      <Button
        variant={attempted ? 'text' : 'outlined'}
        size="large"
        fullWidth
        onClick={() => void resend()}
        disabled={countdown > 0 || status === 'loading' || status === 'success' || status === 'resending'}
        data-testid="pin-resend"
      >
        {countdown > 0 ? translate('pin.resendIn', { seconds: countdown }) : translate('pin.resend')}
      </Button>

      <Typography variant="body2" sx={{ mt: 3, textAlign: 'center' }}>
        <Link href={SUPPORT_URL} onClick={openSupport} underline="hover" data-testid="pin-support">
          {translate('pin.support')}
        </Link>
      </Typography>
    </Box>
  );
};
