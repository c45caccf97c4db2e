import { Box, CircularProgress, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { useTranslate } from 'react-admin';
import { useNavigate, useParams } from 'react-router-dom';
import { fetchProfile } from '../../../providers/auth-provider';
import { isApiError } from '../../../providers/http';
import { readTokens } from '../../../providers/token-store';
import { AuthLayout } from '../../../ui/AuthLayout';
import { teamApi } from '../api';
import type { InviteAccepted, InviteLink } from '../types';
import { errorText } from '../widgets/errors';
import { clearInvite, storeInvite } from './invite-store';
import { InviteErrorDialog, WelcomeDialog } from './InviteDialogs';

type Phase = 'checking' | 'accepting' | 'welcome' | 'error';

/**
 * /team-member-invite/:customerID/:inviteID/:inviteToken (spec 2 and 4): checks the link; a new user (action 1)
 * goes to /registration; a registered user (action 2) who is signed in accepts it here and sees the welcome popup,
 * one who is not goes to /login with the invite kept for the tab.
 */
export const InvitePage = () => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const { customerID = '', inviteID = '', inviteToken = '' } = useParams();
  const [phase, setPhase] = useState<Phase>('checking');
  const [message, setMessage] = useState('');
  const [accepted, setAccepted] = useState<InviteAccepted | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const link: InviteLink = { customerID, inviteID, inviteToken };
    const fail = (error: unknown) => {
      setMessage(isApiError(error) && error.body?.message ? error.body.message : errorText(error, translate));
      setPhase('error');
    };
    (async () => {
      let check;
      try {
        check = await teamApi.checkInvite(link);
      } catch (error) {
        fail(error);
        return;
      }
      if (check.status !== 1) {
        setMessage(translate('team.invitePage.errorText'));
        setPhase('error');
        return;
      }
      storeInvite({ link, check });
      if (check.action === 1) {
        navigate('/registration', { replace: true, state: { link, check } });
        return;
      }
      if (!readTokens()) {
        navigate('/login', { replace: true });
        return;
      }
      setPhase('accepting');
      try {
        const answer = await teamApi.acceptInvite(link);
        if (answer.status !== 1) throw new Error('invite not accepted');
        clearInvite();
        await fetchProfile(true).catch(() => undefined);
        setAccepted(answer);
        setPhase('welcome');
      } catch (error) {
        fail(error);
      }
    })();
  }, [customerID, inviteID, inviteToken, navigate, translate]);

  return (
    <AuthLayout>
      <Box sx={{ textAlign: 'center', py: 4 }} data-testid="invite-page">
        <CircularProgress sx={{ mb: 2.5 }} />
        <Typography variant="h6" component="h1">
          {translate(phase === 'accepting' || phase === 'welcome' ? 'team.invitePage.accepting' : 'team.invitePage.checking')}
        </Typography>
      </Box>
      <InviteErrorDialog open={phase === 'error'} subtitle={message} />
      <WelcomeDialog
        open={phase === 'welcome'}
        account={accepted?.customer.name ?? ''}
        userType="registered"
        onContinue={() => navigate('/select-account', { replace: true })}
      />
    </AuthLayout>
  );
};
