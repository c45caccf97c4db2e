import { Backdrop, Box, CircularProgress, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { fetchProfile } from '../../../providers/auth-provider';
import { isApiError } from '../../../providers/http';
import { readTokens } from '../../../providers/token-store';
import { teamApi } from '../api';
import { errorText } from '../widgets/errors';
import { clearInvite, readInvite } from './invite-store';
import { InviteErrorDialog, WelcomeDialog } from './InviteDialogs';

/**
 * Spec 4: a registered user who opened an invite link while signed out signs in, and the invite kept for the tab is
 * then accepted automatically behind an "accepting invite" loader, followed by the welcome popup (or the invite error
 * popup). Meant for the pages a sign-in lands on (/select-account and the shell); renders nothing otherwise.
 */
export const PendingInviteAcceptor = ({ onAccepted }: { onAccepted?: () => void }) => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const [phase, setPhase] = useState<'idle' | 'accepting' | 'welcome' | 'error'>('idle');
  const [account, setAccount] = useState('');
  const [message, setMessage] = useState('');
  const started = useRef(false);

  useEffect(() => {
    const invite = readInvite();
    if (started.current || !invite || invite.check.action !== 2 || !readTokens()) return;
    started.current = true;
    // taken out of storage at once: if this page is left mid-way, another acceptor must not accept it a second time
    clearInvite();
    setPhase('accepting');
    teamApi
      .acceptInvite(invite.link)
      .then(async (answer) => {
        if (answer.status !== 1) throw new Error('invite not accepted');
        await fetchProfile(true).catch(() => undefined);
        setAccount(answer.customer.name);
        setPhase('welcome');
      })
      .catch((error: unknown) => {
        setMessage(isApiError(error) && error.body?.message ? error.body.message : errorText(error, translate));
        setPhase('error');
      });
  }, [translate]);

  if (phase === 'idle') return null;
  return (
    <>
      <Backdrop open={phase === 'accepting'} sx={{ zIndex: 1500, color: '#fff', flexDirection: 'column', gap: 2 }} data-testid="accepting-invite">
        <CircularProgress color="inherit" />
        <Box>
          <Typography sx={{ fontWeight: 600 }}>{translate('team.invitePage.accepting')}</Typography>
        </Box>
      </Backdrop>
      <InviteErrorDialog open={phase === 'error'} subtitle={message} />
      <WelcomeDialog
        open={phase === 'welcome'}
        account={account}
        userType="registered"
        onContinue={() => {
          setPhase('idle');
          if (onAccepted) onAccepted();
          else navigate('/select-account', { replace: true });
        }}
      />
    </>
  );
};
