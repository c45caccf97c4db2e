import { Route } from 'react-router-dom';
import { lazyPage } from '../../ui/lazyPage';
import type { AdminArea } from '../types';
import en from './i18n/en';
import ru from './i18n/ru';

const ZohoSsoPage = lazyPage(() => import('./ZohoSsoPage').then((m) => m.ZohoSsoPage));
const CompleteSsoPage = lazyPage(() => import('./CompleteSsoPage').then((m) => m.CompleteSsoPage));
const InboxLoginPage = lazyPage(() => import('./InboxLoginPage').then((m) => m.InboxLoginPage));

/** Zoho Inbox single sign-on (spec 2, 4, 7; docs/decisions/0042): pages outside the console's layout, like /login. */
export const ssoArea: AdminArea = {
  key: 'sso',
  messages: { en, ru },
  publicRoutes: [
    <Route key="zoho-sso" path="/zoho-sso" element={<ZohoSsoPage />} />,
    <Route key="complete-sso" path="/complete-sso" element={<CompleteSsoPage />} />,
    <Route key="inbox-login" path="/inbox-login/:loginToken?/:refreshToken?" element={<InboxLoginPage />} />,
  ],
};
