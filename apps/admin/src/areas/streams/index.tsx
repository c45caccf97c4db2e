import BadgeRoundedIcon from '@mui/icons-material/BadgeRounded';
import HubRoundedIcon from '@mui/icons-material/HubRounded';
import { Route } from 'react-router-dom';
import type { AdminArea } from '../types';
import { P } from './constants';
import en from './i18n/en';
import ru from './i18n/ru';
import { lazyPage } from '../../ui/lazyPage';

const StreamsPage = lazyPage(() => import('./streams/StreamsPage').then((m) => m.StreamsPage));
const StreamDetailPage = lazyPage(() => import('./streams/StreamDetailPage').then((m) => m.StreamDetailPage));
const SendersPage = lazyPage(() => import('./senders/SendersPage').then((m) => m.SendersPage));

/**
 * Messaging (issue 5): streams of every type with their tokens, code snippets, diagnostics, statistics, messages and
 * stream events; the send-message popup; the account's senders.
 */
export const streamsArea: AdminArea = {
  key: 'streams',
  messages: { en, ru },
  routes: [
    <Route key="streams" path="/streams" element={<StreamsPage />} />,
    <Route key="stream" path="/streams/:id" element={<StreamDetailPage />} />,
    <Route key="senders" path="/senders" element={<SendersPage />} />,
  ],
  menu: [
    { to: '/streams', label: 'streams.menu.streams', icon: <HubRoundedIcon />, permissions: [P.StreamView], testId: 'menu-streams', count: '/streams?itemsPerPage=1' },
    { to: '/senders', label: 'streams.menu.senders', icon: <BadgeRoundedIcon />, permissions: [P.SenderView], testId: 'menu-senders', count: '/senders?itemsPerPage=1' },
  ],
};

