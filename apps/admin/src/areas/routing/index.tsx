import AltRouteRoundedIcon from '@mui/icons-material/AltRouteRounded';
import GppBadRoundedIcon from '@mui/icons-material/GppBadRounded';
import StorefrontRoundedIcon from '@mui/icons-material/StorefrontRounded';
import VerifiedUserRoundedIcon from '@mui/icons-material/VerifiedUserRounded';
import { Route } from 'react-router-dom';
import type { AdminArea } from '../types';
import en from './i18n/en';
import ru from './i18n/ru';
import { lazyPage } from '../../ui/lazyPage';

const SenderApprovalPage = lazyPage(() => import('./SenderApprovalPage').then((m) => m.SenderApprovalPage));
const VendorsPage = lazyPage(() => import('./VendorsPage').then((m) => m.VendorsPage));
const RoutingPage = lazyPage(() => import('./RoutingPage').then((m) => m.RoutingPage));
const KeywordsPage = lazyPage(() => import('./KeywordsPage').then((m) => m.KeywordsPage));

/**
 * Super-admin messaging operations (issue 5): sender approval across accounts, vendors and channels, the routing
 * per country (global or per account) with its history, and the global malicious keyword list. Uses the streams area's widgets and translations.
 */
export const routingArea: AdminArea = {
  key: 'routing',
  messages: { en, ru },
  routes: [
    <Route key="sender-approval" path="/superadmin/senders" element={<SenderApprovalPage />} />,
    <Route key="vendors" path="/superadmin/vendors" element={<VendorsPage />} />,
    <Route key="routing" path="/superadmin/routing" element={<RoutingPage />} />,
    <Route key="keywords" path="/superadmin/keywords" element={<KeywordsPage />} />,
  ],
  menu: [
    { to: '/superadmin/senders', label: 'routing.menu.approval', icon: <VerifiedUserRoundedIcon />, superAdmin: true, testId: 'menu-sender-approval' },
    { to: '/superadmin/vendors', label: 'routing.menu.vendors', icon: <StorefrontRoundedIcon />, superAdmin: true, testId: 'menu-vendors' },
    { to: '/superadmin/routing', label: 'routing.menu.routing', icon: <AltRouteRoundedIcon />, superAdmin: true, testId: 'menu-routing' },
    { to: '/superadmin/keywords', label: 'routing.menu.keywords', icon: <GppBadRoundedIcon />, superAdmin: true, testId: 'menu-keywords' },
  ],
};
