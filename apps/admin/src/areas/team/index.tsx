import AccountCircleRoundedIcon from '@mui/icons-material/AccountCircleRounded';
import GroupsRoundedIcon from '@mui/icons-material/GroupsRounded';
import KeyRoundedIcon from '@mui/icons-material/KeyRounded';
import ShieldRoundedIcon from '@mui/icons-material/ShieldRounded';
import { Route } from 'react-router-dom';
import type { AdminArea } from '../types';
import { P } from './constants';
import en from './i18n/en';
import ru from './i18n/ru';
import { lazyPage } from '../../ui/lazyPage';

const TeamPage = lazyPage(() => import('./members/TeamPage').then((m) => m.TeamPage));
const RolesPage = lazyPage(() => import('./roles/RolesPage').then((m) => m.RolesPage));
const ApiKeysPage = lazyPage(() => import('./api-keys/ApiKeysPage').then((m) => m.ApiKeysPage));
const ProfilePage = lazyPage(() => import('./profile/ProfilePage').then((m) => m.ProfilePage));
const RegistrationPage = lazyPage(() => import('./public/RegistrationPage').then((m) => m.RegistrationPage));
const InvitePage = lazyPage(() => import('./public/InvitePage').then((m) => m.InvitePage));
const ResetPasswordPage = lazyPage(() => import('./public/ResetPasswordPage').then((m) => m.ResetPasswordPage));

/**
 * Team and access: team members and invites, roles and their permission matrix, API keys, the user's profile, and
 * the public pages of invites and passwords (registration, invite link, password reset).
 */
export const teamArea: AdminArea = {
  key: 'team',
  messages: { en, ru },
  routes: [
    <Route key="team" path="/users/management" element={<TeamPage />} />,
    <Route key="roles" path="/users/roles" element={<RolesPage />} />,
    <Route key="api-keys" path="/api-keys" element={<ApiKeysPage />} />,
    <Route key="profile" path="/profile" element={<ProfilePage />} />,
  ],
  publicRoutes: [
    <Route key="registration" path="/registration" element={<RegistrationPage />} />,
    <Route key="invite" path="/team-member-invite/:customerID/:inviteID/:inviteToken" element={<InvitePage />} />,
    <Route key="reset-password" path="/reset-password/:email/:token" element={<ResetPasswordPage />} />,
  ],
  menu: [
    { to: '/users/management', label: 'team.menu.team', icon: <GroupsRoundedIcon />, permissions: [P.UserInviteView], testId: 'menu-team' },
    { to: '/users/roles', label: 'team.menu.roles', icon: <ShieldRoundedIcon />, permissions: [P.UserRoleView], testId: 'menu-roles' },
    { to: '/api-keys', label: 'team.menu.apiKeys', icon: <KeyRoundedIcon />, permissions: [P.ApiKeyView], testId: 'menu-api-keys' },
    { to: '/profile', label: 'team.menu.profile', icon: <AccountCircleRoundedIcon />, testId: 'menu-profile' },
  ],
};
