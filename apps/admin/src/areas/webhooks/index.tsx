import ReceiptLongRoundedIcon from '@mui/icons-material/ReceiptLongRounded';
import WebhookRoundedIcon from '@mui/icons-material/WebhookRounded';
import { Route } from 'react-router-dom';
import { lazyPage } from '../../ui/lazyPage';
import type { AdminArea } from '../types';
import { P } from './api';
import en from './i18n/en';
import ru from './i18n/ru';

const WebhooksPage = lazyPage(() => import('./WebhooksPage').then((m) => m.WebhooksPage));
const RequestLogPage = lazyPage(() => import('./RequestLogPage').then((m) => m.RequestLogPage));

/** Webhooks: the list with create, edit and test (spec 2's test result modal and request preview card), and the request log. */
export const webhooksArea: AdminArea = {
  key: 'webhooks',
  messages: { en, ru },
  routes: [<Route key="webhooks" path="/webhooks" element={<WebhooksPage />} />, <Route key="webhook-requests" path="/webhook-requests" element={<RequestLogPage />} />],
  menu: [
    { to: '/webhooks', label: 'webhooks.menu.webhooks', icon: <WebhookRoundedIcon />, permissions: [P.WebhookView], testId: 'menu-webhooks' },
    { to: '/webhook-requests', label: 'webhooks.menu.requests', icon: <ReceiptLongRoundedIcon />, permissions: [P.WebhookRequestView], testId: 'menu-webhook-requests' },
  ],
};
