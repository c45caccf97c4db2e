import HubRoundedIcon from '@mui/icons-material/HubRounded';
import { Route } from 'react-router-dom';
import { lazyPage } from '../../ui/lazyPage';
import type { AdminArea } from '../types';
import { P } from './api';
import en from './i18n/en';
import ru from './i18n/ru';

const IntegrationConnectionsPage = lazyPage(() => import('./IntegrationConnectionsPage').then((m) => m.IntegrationConnectionsPage));
const CompleteIntegrationPage = lazyPage(() => import('./CompleteIntegrationPage').then((m) => m.CompleteIntegrationPage));

/** CRM and shop integrations (issue 18; docs/decisions/0042): the connections list with sync bars, connect flows, the completion screen. */
export const integrationsArea: AdminArea = {
  key: 'integrations',
  messages: { en, ru },
  routes: [
    <Route key="integration-connections" path="/integration-connections" element={<IntegrationConnectionsPage />} />,
    <Route key="complete-integration" path="/complete-integration/:type/:integrationKey" element={<CompleteIntegrationPage />} />,
  ],
  menu: [{ to: '/integration-connections', label: 'integrations.menu.connections', icon: <HubRoundedIcon />, permissions: [P.IntegrationView], testId: 'menu-integrations' }],
};
