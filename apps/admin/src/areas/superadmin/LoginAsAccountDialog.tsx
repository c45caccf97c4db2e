import LoginRoundedIcon from '@mui/icons-material/LoginRounded';
import { Alert, Box, Button, CircularProgress, List, ListItemButton, Radio, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import { startLoginAs, switchAccount } from '../../providers/auth-provider';
import { useProfile } from '../../ui/useProfile';
import { teamApi } from '../team/api';
import { MemberStatus } from '../team/constants';
import { MemberStatusChip } from '../team/members/TeamPage';
import type { Member } from '../team/types';
import { AppModal } from '../../ui/modal/AppModal';
import { errorText } from '../team/widgets/errors';
import { PersonCell } from '../team/widgets/PersonCell';
import type { Customer } from './api';

const canEnterAs = (m: Member) => !m.superAdmin && (m.status === MemberStatus.Owner || m.status === MemberStatus.Active);

/**
 * Login-as from the accounts list: login-as works inside the current account, so the super admin first enters the
 * chosen account (PUT /api/users/connected_update), then picks one of its members (the owner first).
 */
export const LoginAsAccountDialog = ({ account, onClose }: { account: Customer | null; onClose: () => void }) => {
  const translate = useTranslate();
  const { profile, refetch } = useProfile();
  const [members, setMembers] = useState<Member[] | null>(null);
  const [chosen, setChosen] = useState<string>('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const inside = !!account && profile?.customer?.id === account.id;

  const load = async () => {
    if (!account) return;
    setBusy(true);
    setError(null);
    try {
      if (profile?.customer?.id !== account.id) {
        await switchAccount(account.id);
        await refetch();
      }
      const list = (await teamApi.members()).items.filter(canEnterAs).sort((a, b) => a.status - b.status);
      setMembers(list);
      setChosen(list[0]?.email ?? '');
    } catch (e) {
      setError(errorText(e, translate));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    setMembers(null);
    setChosen('');
    setError(null);
    // already inside the account: nothing changes by listing its members
    if (account && profile?.customer?.id === account.id) void load();
  }, [account?.id]); // the profile changes when load() switches accounts; that must not load again

  const go = async () => {
    if (!chosen) return;
    setBusy(true);
    setError(null);
    try {
      await startLoginAs(chosen);
      window.location.assign('/home');
    } catch (e) {
      setError(errorText(e, translate));
      setBusy(false);
    }
  };

  return (
    <AppModal
      open={!!account}
      onClose={onClose}
      size="m"
      title={translate('superadmin.loginAs.title', { name: account?.name ?? '' })}
      testId="account-login-as-dialog"
      dismissible={!busy}
      hideCloseWhenLocked
      actions={
        <>
          <Button color="inherit" onClick={onClose} disabled={busy}>
            {translate('team.actions.cancel')}
          </Button>
          {members === null ? (
            <Button variant="contained" onClick={() => void load()} disabled={busy} data-testid="login-as-enter" startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined}>
              {translate('superadmin.loginAs.enter')}
            </Button>
          ) : (
            <Button variant="contained" onClick={() => void go()} disabled={busy || !chosen} data-testid="login-as-go" startIcon={busy ? <CircularProgress size={16} color="inherit" /> : <LoginRoundedIcon />}>
              {translate('team.loginAs.action')}
            </Button>
          )}
        </>
      }
    >
      {error && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {error}
        </Alert>
      )}
      {members === null ? (
        <Typography color="text.secondary">{translate(inside ? 'superadmin.loginAs.loading' : 'superadmin.loginAs.switchFirst', { name: account?.name ?? '' })}</Typography>
      ) : members.length === 0 ? (
        <Alert severity="info">{translate('superadmin.loginAs.nobody')}</Alert>
      ) : (
        <Box>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
            {translate('superadmin.loginAs.choose')}
          </Typography>
          <List disablePadding sx={{ border: 1, borderColor: 'divider', borderRadius: '8px', maxHeight: 340, overflowY: 'auto' }}>
            {members.map((m, i) => (
              <ListItemButton key={m.id} selected={chosen === m.email} onClick={() => setChosen(m.email)} sx={{ borderTop: i ? 1 : 0, borderColor: 'divider', gap: 1 }} data-testid="login-as-member">
                <Radio size="small" checked={chosen === m.email} tabIndex={-1} />
                <Box sx={{ flex: 1, minWidth: 0 }}>
                  <PersonCell firstName={m.firstName} lastName={m.lastName} email={m.email} />
                </Box>
                <MemberStatusChip status={m.status} />
              </ListItemButton>
            ))}
          </List>
        </Box>
      )}
    </AppModal>
  );
};
