import CelebrationRoundedIcon from '@mui/icons-material/CelebrationRounded';
import { Box, Button, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { AppModal } from '../../../ui/modal/AppModal';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';

/** Spec 4 and 8: an invite error opens a confirm popup (title and subtitle) that replaces the page with /login. */
export const InviteErrorDialog = ({ open, subtitle }: { open: boolean; subtitle: string }) => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const leave = () => navigate('/login', { replace: true });
  return (
    <ConfirmDialog
      open={open}
      type="error"
      title={translate('team.invitePage.errorTitle')}
      text={subtitle || translate('team.invitePage.errorText')}
      confirmLabel={translate('team.invitePage.toLogin')}
      cancelLabel={null}
      onConfirm={leave}
      onClose={leave}
      testId="invite-error"
    />
  );
};

/**
 * The welcome popup of spec 2 and 4, for users who joined an account through an invite: a new user (after
 * registration, who signs in next) or a registered one (after accepting).
 */
export const WelcomeDialog = ({ open, account, userType, onContinue }: { open: boolean; account: string; userType: 'newly-registered' | 'registered'; onContinue: () => void }) => {
  const translate = useTranslate();
  return (
    <AppModal open={open} onClose={onContinue} title={translate('team.welcome.title', { account })} size="s" testId="welcome-popup">
      <Box sx={{ textAlign: 'center', pt: 1 }}>
        <Box sx={{ width: 72, height: 72, borderRadius: '50%', display: 'inline-grid', placeItems: 'center', bgcolor: '#eef2ff', color: 'primary.main', mb: 2 }}>
          <CelebrationRoundedIcon sx={{ fontSize: 38 }} />
        </Box>
        <Typography sx={{ mb: 3 }} color="text.secondary">
          {translate(userType === 'newly-registered' ? 'team.welcome.newUser' : 'team.welcome.registered', { account })}
        </Typography>
        <Button variant="contained" size="large" fullWidth onClick={onContinue} data-testid="welcome-continue">
          {translate(userType === 'newly-registered' ? 'team.welcome.signIn' : 'team.welcome.continue')}
        </Button>
      </Box>
    </AppModal>
  );
};
