import ForumRoundedIcon from '@mui/icons-material/ForumRounded';
import { Route } from 'react-router-dom';
import { lazyPage } from '../../ui/lazyPage';
import type { AdminArea } from '../types';
import { P } from './constants';
import en from './i18n/en';
import ru from './i18n/ru';

const InboxPage = lazyPage(() => import('./InboxPage').then((m) => m.InboxPage));
const InboxOnboardingPage = lazyPage(() => import('./OnboardingPage').then((m) => m.InboxOnboardingPage));
const InboxSettingsPage = lazyPage(() => import('./settings/SettingsPage').then((m) => m.InboxSettingsPage));
const InboxReportsPage = lazyPage(() => import('./reports/ReportsPage').then((m) => m.InboxReportsPage));

/**
 * The shared inbox (issue 14): the three-pane working screen at /inbox (view pages main and onboarding), its
 * statistics boards and its settings section (spec 2 "/inbox...").
 */
export const inboxArea: AdminArea = {
  key: 'inbox',
  messages: { en, ru },
  routes: [
    <Route key="inbox" path="/inbox" element={<InboxPage />} />,
    <Route key="inbox-onboarding" path="/inbox/onboarding" element={<InboxOnboardingPage />} />,
    <Route key="inbox-settings" path="/inbox/settings/:section?" element={<InboxSettingsPage />} />,
    <Route key="inbox-statistics" path="/inbox/statistics/:board?" element={<InboxReportsPage />} />,
  ],
  menu: [{ to: '/inbox', label: 'inbox.menu', icon: <ForumRoundedIcon />, permissions: [P.View], testId: 'menu-inbox', hint: 'inbox.hint' }],
};
