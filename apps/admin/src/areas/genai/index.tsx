import AutoAwesomeRoundedIcon from '@mui/icons-material/AutoAwesomeRounded';
import { Route } from 'react-router-dom';
import { Permission } from '@switchboard/contracts/src/permissions';
import { lazyPage } from '../../ui/lazyPage';
import type { AdminArea } from '../types';
import en from './i18n/en';
import ru from './i18n/ru';

const AiSettingsPage = lazyPage(() => import('./AiSettingsPage').then((m) => m.AiSettingsPage));

/** Generative AI (docs/decisions/0041): the account's AI settings; the composer and campaign buttons live in AiAssist.tsx. */
export const genaiArea: AdminArea = {
  key: 'genai',
  messages: { en, ru },
  routes: [<Route key="settings-ai" path="/settings/ai" element={<AiSettingsPage />} />],
  menu: [{ to: '/settings/ai', label: 'genai.menu', icon: <AutoAwesomeRoundedIcon />, permissions: [Permission.SettingsView], testId: 'menu-genai', hint: 'genai.hint' }],
};
