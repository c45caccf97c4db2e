import AdminPanelSettingsRoundedIcon from '@mui/icons-material/AdminPanelSettingsRounded';
import { Route } from 'react-router-dom';
import { lazyPage } from '../../ui/lazyPage';
import type { AdminArea } from '../types';
import en from './i18n/en';
import ru from './i18n/ru';

const AccountsPage = lazyPage(() => import('./AccountsPage').then((m) => m.AccountsPage));

/** Super administration (spec 6): every account, approval, status, settings and limits, balance, login-as. */
export const superAdminArea: AdminArea = {
  key: 'superadmin',
  messages: { en, ru },
  routes: [<Route key="accounts" path="/superadmin/accounts" element={<AccountsPage />} />],
  menu: [{ to: '/superadmin/accounts', label: 'superadmin.menu', icon: <AdminPanelSettingsRoundedIcon />, superAdmin: true, testId: 'menu-superadmin' }],
};
