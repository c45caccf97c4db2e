import InsightsRoundedIcon from '@mui/icons-material/InsightsRounded';
import { Route } from 'react-router-dom';
import type { AdminArea } from '../types';
import en from './i18n/en';
import ru from './i18n/ru';
import { lazyPage } from '../../ui/lazyPage';

const StatisticsPage = lazyPage(() => import('./StatisticsPage').then((m) => m.StatisticsPage));

/** The permission the dashboard's report calls need (spec 6). */
export const DASHBOARD_VIEW = 'DASHBOARD_VIEW';

/** Statistics (issue 16): the messaging dashboard on the home page and the statistics page, from the stats service. */
export const statsArea: AdminArea = {
  key: 'statistics',
  messages: { en, ru },
  routes: [<Route key="statistics" path="/statistics" element={<StatisticsPage />} />],
  menu: [{ to: '/statistics', label: 'statistics.menu', icon: <InsightsRoundedIcon />, permissions: [DASHBOARD_VIEW], testId: 'menu-statistics' }],
};
