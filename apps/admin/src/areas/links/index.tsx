import WorkspacesRoundedIcon from '@mui/icons-material/WorkspacesRounded';
import LanguageRoundedIcon from '@mui/icons-material/LanguageRounded';
import LocalOfferRoundedIcon from '@mui/icons-material/LocalOfferRounded';
import { Route } from 'react-router-dom';
import { lazyPage } from '../../ui/lazyPage';
import type { AdminArea } from '../types';
import { P } from './api';
import en from './i18n/en';
import ru from './i18n/ru';

const DomainsPage = lazyPage(() => import('./DomainsPage').then((m) => m.DomainsPage));
const PoolsPage = lazyPage(() => import('./PoolsPage').then((m) => m.PoolsPage));
const OffersPage = lazyPage(() => import('./OffersPage').then((m) => m.OffersPage));

/** Short links: domains (verified in DNS), pools and offers (docs/decisions/0033-links-domains.md). */
export const linksArea: AdminArea = {
  key: 'links',
  messages: { en, ru },
  routes: [
    <Route key="domains" path="/domains" element={<DomainsPage />} />,
    <Route key="domain-pools" path="/domain-pools" element={<PoolsPage />} />,
    <Route key="offers" path="/offers" element={<OffersPage />} />,
  ],
  menu: [
    { to: '/domains', label: 'links.menu.domains', icon: <LanguageRoundedIcon />, permissions: [P.DomainView], testId: 'menu-domains', count: '/domains?itemsPerPage=1', hint: 'links.menu.domainsHint' },
    { to: '/domain-pools', label: 'links.menu.pools', icon: <WorkspacesRoundedIcon />, permissions: [P.DomainView], testId: 'menu-domain-pools' },
    { to: '/offers', label: 'links.menu.offers', icon: <LocalOfferRoundedIcon />, permissions: [P.UrlOfferView], testId: 'menu-offers', hint: 'links.menu.offersHint' },
  ],
};
