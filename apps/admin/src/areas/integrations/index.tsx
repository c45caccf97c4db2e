import HubRoundedIcon from '@mui/icons-material/HubRounded';
import VpnKeyRoundedIcon from '@mui/icons-material/VpnKeyRounded';
import { Route } from 'react-router-dom';
import { lazyPage } from '../../ui/lazyPage';
import type { AdminArea } from '../types';
import { P } from './api';
import en from './i18n/en';
import ru from './i18n/ru';

const IntegrationConnectionsPage = lazyPage(() => import('./IntegrationConnectionsPage').then((m) => m.IntegrationConnectionsPage));
const ZohoAccessRequestsPage = lazyPage(() => import('./ZohoAccessRequestsPage').then((m) => m.ZohoAccessRequestsPage));
const CompleteIntegrationPage = lazyPage(() => import('./CompleteIntegrationPage').then((m) => m.CompleteIntegrationPage));

/** CRM and shop integrations (issue 18; docs/decisions/0042): the connections list with sync bars, connect flows, the completion screen, the Zoho Inbox access requests. */
export const integrationsArea: AdminArea = {
  key: 'integrations',
  messages: { en, ru },
  routes: [
    <Route key="integration-connections" path="/integration-connections" element={<IntegrationConnectionsPage />} />,
    <Route key="zoho-access-requests" path="/zoho-access-requests" element={<ZohoAccessRequestsPage />} />,
    <Route key="complete-integration" path="/complete-integration/:type/:integrationKey" element={<CompleteIntegrationPage />} />,
  ],
  menu: [
    { to: '/integration-connections', label: 'integrations.menu.connections', icon: <HubRoundedIcon />, permissions: [P.IntegrationView], testId: 'menu-integrations' },
    { to: '/zoho-access-requests', label: 'integrations.menu.zohoAccess', icon: <VpnKeyRoundedIcon />, permissions: [P.UserInviteView], testId: 'menu-zoho-access' },
  ],
};
