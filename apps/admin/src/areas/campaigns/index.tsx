import CampaignRoundedIcon from '@mui/icons-material/CampaignRounded';
import ShuffleRoundedIcon from '@mui/icons-material/ShuffleRounded';
import TextSnippetRoundedIcon from '@mui/icons-material/TextSnippetRounded';
import { Route } from 'react-router-dom';
import { lazyPage } from '../../ui/lazyPage';
import type { AdminArea } from '../types';
import { P, PATHS } from './api';
import en from './i18n/en';
import ru from './i18n/ru';

const CampaignsPage = lazyPage(() => import('./list/CampaignsPage').then((m) => m.CampaignsPage));
const CampaignPage = lazyPage(() => import('./page/CampaignPage').then((m) => m.CampaignPage));
const TemplatesPage = lazyPage(() => import('./templates/TemplatesPage').then((m) => m.TemplatesPage));
const WordListsPage = lazyPage(() => import('./wordlists/WordListsPage').then((m) => m.WordListsPage));

/**
 * Campaigns (issue 12): the campaigns list with its filter tabs and live progress, the create wizard and the
 * changes-review popup, the campaign page, templates and word lists. The list side panel's campaigns tab is
 * `list/ListCampaignsTab`, shown by the contacts area. Choices the spec leaves open: docs/decisions/0036-campaigns-console.md.
 */
export const campaignsArea: AdminArea = {
  key: 'campaigns',
  messages: { en, ru },
  routes: [
    <Route key="campaigns" path={PATHS.campaigns} element={<CampaignsPage />} />,
    <Route key="campaign" path="/campaigns/:id" element={<CampaignPage />} />,
    <Route key="templates" path={PATHS.templates} element={<TemplatesPage />} />,
    <Route key="word-lists" path={PATHS.wordLists} element={<WordListsPage />} />,
  ],
  menu: [
    { to: PATHS.campaigns, label: 'campaigns.menu.campaigns', icon: <CampaignRoundedIcon />, permissions: [P.CampaignView], testId: 'menu-campaigns', count: '/campaigns?itemsPerPage=1', hint: 'campaigns.menu.campaignsHint' },
    { to: PATHS.templates, label: 'campaigns.menu.templates', icon: <TextSnippetRoundedIcon />, permissions: [P.TemplateView], testId: 'menu-templates', count: '/templates?itemsPerPage=1', hint: 'campaigns.menu.templatesHint' },
    { to: PATHS.wordLists, label: 'campaigns.menu.wordLists', icon: <ShuffleRoundedIcon />, permissions: [P.TemplateView], testId: 'menu-word-lists', hint: 'campaigns.menu.wordListsHint' },
  ],
};
