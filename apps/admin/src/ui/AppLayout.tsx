import HomeRoundedIcon from '@mui/icons-material/HomeRounded';
import SwapHorizRoundedIcon from '@mui/icons-material/SwapHorizRounded';
import { Box, Chip } from '@mui/material';
import { useEffect, type ReactNode } from 'react';
import { AppBar, Layout, LoadingIndicator, Menu, TitlePortal } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { areas, type AreaMenuItem } from '../areas';
import { LoginAsStrip } from '../areas/team/login-as/LoginAsStrip';
import { PendingInviteAcceptor } from '../areas/team/public/PendingInviteAcceptor';
import { isSuperAdmin } from '../providers/types';
import { blockReason } from './account-access';
import { AuthWatcher } from './AuthWatcher';
import { LanguageSwitcher } from './LanguageSwitcher';
import { Logo } from './Logo';
import { LayoutError } from './RenderError';
import { useProfile } from './useProfile';

const CurrentAccountChip = () => {
  const { profile } = useProfile();
  if (!profile?.customer) return null;
  return (
    <Chip
      label={profile.customer.name}
      size="small"
      variant="outlined"
      data-testid="appbar-account"
      sx={{ mr: 1, fontWeight: 500, display: { xs: 'none', sm: 'inline-flex' } }}
    />
  );
};

const ShellAppBar = () => (
  <AppBar
    color="secondary"
    toolbar={
      <Box sx={{ display: 'flex', alignItems: 'center' }}>
        <CurrentAccountChip />
        <LanguageSwitcher />
        <LoadingIndicator />
      </Box>
    }
  >
    <Box sx={{ display: { xs: 'none', sm: 'flex' }, alignItems: 'center', mr: 2, pr: 2, borderRight: 1, borderColor: 'divider', height: 28 }}>
      <Logo />
    </Box>
    <TitlePortal />
  </AppBar>
);

/** The areas' menu entries this user may open (super admins see everything); the menu and the home page show them. */
export const useMenuItems = (): AreaMenuItem[] => {
  const { profile } = useProfile();
  return areas
    .flatMap((a) => a.menu ?? [])
    .filter((item) => {
      if (!profile) return false;
      const sa = isSuperAdmin(profile);
      if (item.superAdmin) return sa;
      return sa || (item.permissions ?? []).every((p) => profile.userPermissions.includes(p));
    });
};

const ShellMenu = () => {
  const { profile } = useProfile();
  const items = useMenuItems();
  return (
    <Menu>
      <Menu.Item to="/home" primaryText="menu.home" leftIcon={<HomeRoundedIcon />} data-testid="menu-home" />
      {profile && profile.customers.length > 1 && (
        <Menu.Item to="/select-account" primaryText="menu.selectAccount" leftIcon={<SwapHorizRoundedIcon />} />
      )}
      {items.map((item) => (
        <Menu.Item key={item.to} to={item.to} primaryText={item.label} leftIcon={item.icon} data-testid={item.testId} />
      ))}
    </Menu>
  );
};

/** Sends a user without access to the current account to /blocked-access (spec 2 and 6). */
const AccessGuard = () => {
  const { profile } = useProfile();
  const navigate = useNavigate();
  useEffect(() => {
    if (profile && blockReason(profile)) navigate('/blocked-access', { replace: true });
  }, [profile, navigate]);
  return null;
};

/** The shell: app bar, the collapsible 230/70 px menu (widths come from the theme), render-error modal. */
export const AppLayout = ({ children }: { children: ReactNode }) => (
  <Layout appBar={ShellAppBar} menu={ShellMenu} error={LayoutError}>
    <AuthWatcher />
    <AccessGuard />
    <LoginAsStrip />
    <PendingInviteAcceptor />
    {children}
  </Layout>
);
