import SearchIcon from '@mui/icons-material/Search';
import SearchOffRoundedIcon from '@mui/icons-material/SearchOffRounded';
import { Box, Button, Container, Dialog, DialogActions, DialogContent, DialogTitle, Grid, InputAdornment, LinearProgress, TextField, Typography } from '@mui/material';
import { useEffect, useMemo, useState } from 'react';
import { useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { switchAccount } from '../../providers/auth-provider';
import { isApiError } from '../../providers/http';
import { isSuperAdmin, type AccountSummary } from '../../providers/types';
import { PendingInviteAcceptor } from '../../areas/team/public/PendingInviteAcceptor';
import { AuthWatcher } from '../../ui/AuthWatcher';
import { Copyright } from '../../ui/Copyright';
import { PageHeader } from '../../ui/PageHeader';
import { AccountCard } from './AccountCard';
import { useProfile } from '../../ui/useProfile';

/** Case-insensitive match on the account name (spec 2). */
export const filterAccounts = (accounts: AccountSummary[], search: string) => {
  const needle = search.trim().toLocaleLowerCase();
  return needle ? accounts.filter((a) => a.name.toLocaleLowerCase().includes(needle)) : accounts;
};

/** /select-account: the account picker (spec 2). */
export const SelectAccountPage = () => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const { profile, isPending, refetch } = useProfile();
  const [search, setSearch] = useState('');
  const [switchingId, setSwitchingId] = useState<number | null>(null);
  const [dialog, setDialog] = useState<'accessDenied' | 'switchError' | null>(null);
  const [switchError, setSwitchError] = useState<string>('');

  const accounts = useMemo(() => profile?.customers ?? [], [profile]);
  const visible = useMemo(() => filterAccounts(accounts, search), [accounts, search]);

  // with one account or none there is nothing to choose
  useEffect(() => {
    if (profile && profile.customers.length <= 1) navigate('/home', { replace: true });
  }, [profile, navigate]);

  const choose = async (account: AccountSummary) => {
    const blocked = account.status === 'disable' || account.status === 'delete';
    if (blocked && !isSuperAdmin(profile)) {
      setDialog('accessDenied');
      return;
    }
    setSwitchingId(account.id);
    try {
      await switchAccount(account.id);
      await refetch();
      navigate('/home');
    } catch (error) {
      if (isApiError(error) && error.status === 401) return; // the AuthWatcher logs out
      setSwitchError(
        isApiError(error) && error.body?.code === 'NO_PERMISSIONS'
          ? translate('accounts.changingAccount.error.noPermissions')
          : translate('accounts.changingAccount.error.text'),
      );
      setDialog('switchError');
    } finally {
      setSwitchingId(null);
    }
  };

  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column', bgcolor: 'background.default' }}>
      <AuthWatcher />
      <PendingInviteAcceptor onAccepted={() => void refetch()} />
      <PageHeader />
      {(isPending || switchingId !== null) && <LinearProgress sx={{ height: 2 }} />}
      <Container maxWidth="lg" component="main" sx={{ flex: 1, py: { xs: 4, md: 6 } }}>
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, alignItems: 'flex-end', justifyContent: 'space-between', mb: 4 }}>
          <Box>
            <Typography variant="h4" component="h1" gutterBottom>
              {translate('selectAccount.title')}
            </Typography>
            <Typography color="text.secondary">{translate('selectAccount.subtitle')}</Typography>
          </Box>
          <TextField
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder={translate('selectAccount.search')}
            size="small"
            sx={{ width: { xs: '100%', sm: 320 } }}
            slotProps={{
              input: { startAdornment: <InputAdornment position="start"><SearchIcon fontSize="small" /></InputAdornment> },
              htmlInput: { 'data-testid': 'account-search', 'aria-label': translate('selectAccount.search') },
            }}
          />
        </Box>

        {profile && visible.length === 0 && (
          <Box sx={{ textAlign: 'center', py: 10, color: 'text.secondary' }} data-testid="accounts-no-results">
            <SearchOffRoundedIcon sx={{ fontSize: 48, mb: 1, opacity: 0.6 }} />
            <Typography>{translate('selectAccount.noResults', { search: search.trim() })}</Typography>
          </Box>
        )}

        <Grid container spacing={2.5}>
          {visible.map((account) => (
            <Grid key={account.id} size={{ xs: 12, sm: 6, md: 4 }}>
              <AccountCard
                account={account}
                current={profile?.customer?.id === account.id}
                switching={switchingId === account.id}
                onChoose={(a) => void choose(a)}
              />
            </Grid>
          ))}
        </Grid>
      </Container>
      <Box component="footer" sx={{ textAlign: 'center', py: 3 }}>
        <Copyright />
      </Box>

      <Dialog open={dialog === 'accessDenied'} onClose={() => setDialog(null)} maxWidth="xs" fullWidth data-testid="access-denied-modal">
        <DialogTitle>{translate('accessDenied.title')}</DialogTitle>
        <DialogContent>
          <Typography color="text.secondary">{translate('accessDenied.text')}</Typography>
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button variant="contained" onClick={() => setDialog(null)}>
            {translate('accessDenied.close')}
          </Button>
        </DialogActions>
      </Dialog>

      <Dialog open={dialog === 'switchError'} onClose={() => setDialog(null)} maxWidth="xs" fullWidth data-testid="switch-error-modal">
        <DialogTitle>{translate('accounts.changingAccount.error.title')}</DialogTitle>
        <DialogContent>
          <Typography color="text.secondary">{switchError}</Typography>
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button variant="contained" onClick={() => setDialog(null)}>
            {translate('accessDenied.close')}
          </Button>
        </DialogActions>
      </Dialog>
    </Box>
  );
};
