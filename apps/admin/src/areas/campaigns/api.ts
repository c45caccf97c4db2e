import { apiFetch } from '../../providers/http';
import type { Campaign, CampaignAnalytics, CampaignVariableLink, CampaignInput, EstimatedCost, ListResult, Tag, Template, TemplateVariant, UnreachableTimezones, WordList } from './types';

/** Permission strings of spec 6 these screens check. */
export const P = {
  CampaignView: 'CAMPAIGN_VIEW',
  CampaignAddEdit: 'CAMPAIGN_ADD_EDIT',
  CampaignRemove: 'CAMPAIGN_REMOVE',
  CampaignTester: 'CAMPAIGN_TESTER',
  TemplateView: 'TEMPLATE_VIEW',
  TemplateAddEdit: 'TEMPLATE_ADD_EDIT',
  TemplateRemove: 'TEMPLATE_REMOVE',
  ListView: 'CONTACT_LIST_SEGMENT_VIEW',
  StreamView: 'STREAM_VIEW',
  SenderView: 'SENDER_VIEW',
  CostView: 'COST_VIEW',
} as const;

export const PATHS = {
  campaigns: '/campaigns',
  campaign: (id: number | string) => `/campaigns/${id}`,
  templates: '/templates',
  wordLists: '/word-lists',
} as const;

/** Spec 9: templates and word lists 500 per page, dropdowns 2000. */
export const TEMPLATES_PER_PAGE = 500;
export const DROPDOWN_PER_PAGE = 2000;
/** Spec 7: realtime lists load 10 per page. */
export const REALTIME_PAGE = 10;

const q = (params: Record<string, string | number | boolean | null | undefined | ReadonlyArray<string | number>>): string => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) for (const x of v) s.append(`${k}[]`, String(x));
    else s.set(k, String(v));
  }
  const text = s.toString();
  return text ? `?${text}` : '';
};

export interface CampaignQuery {
  page: number;
  perPage: number;
  /** A filter tab of spec 4 (the server knows their statuses). */
  tab?: string;
  name?: string;
  contactList?: number;
  /** Listed first (the PINNED_CAMPAIGN preference). */
  pinned?: readonly number[];
}

/** The calls of spec 7 "Campaigns", "Templates and variants" and the word lists. */
export const campaignsApi = {
  list: (p: CampaignQuery) =>
    apiFetch<ListResult<Campaign>>(
      `/campaigns${q({ page: p.page, itemsPerPage: p.perPage, 'order[id]': 'desc', tab: p.tab, name: p.name, contactList: p.contactList, pinned: p.pinned?.length ? p.pinned.join(',') : undefined })}`,
    ),
  get: (id: number) => apiFetch<Campaign>(`/campaigns/${id}`),
  create: (body: CampaignInput) => apiFetch<Campaign>('/campaigns', { method: 'POST', body }),
  update: (id: number, body: Partial<CampaignInput>) => apiFetch<Campaign>(`/campaigns/${id}`, { method: 'PUT', body }),
  remove: (id: number) => apiFetch<void>(`/campaigns/${id}`, { method: 'DELETE' }),
  duplicate: (id: number) => apiFetch<Campaign>('/campaigns/duplicate', { method: 'POST', body: { id } }),
  action: (id: number, action: 'start' | 'pause' | 'play' | 'abort') => apiFetch<Campaign>(`/campaigns/${id}/${action}`, { method: 'POST' }),
  ratios: (id: number, campaignVariants: Array<{ id: number; ratio: number }>) => apiFetch<Campaign>(`/campaigns/${id}/ratios`, { method: 'PUT', body: { campaignVariants } }),
  /** The counters per variant and per sender (not for scheduled or draft campaigns: 409). */
  analytics: (id: number) => apiFetch<CampaignAnalytics>(`/campaigns/${id}/analytics`),
  /** Audience and cost per country of a saved campaign (`pending` until counted; `campaign.estimate_ready` follows). */
  estimatedCost: (campaign: number, refresh = false) => apiFetch<EstimatedCost>(`/campaigns/get_estimated_cost${q({ campaign, refresh: refresh || undefined })}`),
  unreachableTimezones: (campaign: number, refresh = false) => apiFetch<UnreachableTimezones>(`/campaigns/get_unreachable_timezones${q({ campaign, refresh: refresh || undefined })}`),
  /** The longest message a text can make; `variables` is the length the server assumes for each variable in it. */
  varsMaxLength: (text: string) => apiFetch<{ variables: Record<string, number>; maxLength: number; segments: number }>(`/campaigns/get_vars_max_length${q({ text })}`),

  /** The campaign's variable links (default value, missing rule, link params). */
  variables: (id: number) => apiFetch<ListResult<CampaignVariableLink>>(`/campaigns/${id}/variables`),
  /** Samples of a spintax text drawn by the service (the same ones for the same text); 400 naming the position of bad syntax. */
  spintaxPreview: (text: string, samples: number) =>
    apiFetch<{ samples: string[]; combinations: number; maxLength: number; segments: number }>('/campaigns/spintax_preview', { method: 'POST', body: { text, samples } }),

  tags: () => apiFetch<ListResult<Tag>>(`/campaign_tags/dropdown`),
  createTag: (value: string) => apiFetch<Tag>('/campaign_tags', { method: 'POST', body: { value } }),

  templates: () => apiFetch<ListResult<Template>>(`/templates${q({ page: 1, itemsPerPage: TEMPLATES_PER_PAGE, 'order[id]': 'desc' })}`),
  template: (id: number) => apiFetch<Template>(`/templates/${id}`),
  templateVariants: (id: number) => apiFetch<ListResult<TemplateVariant>>(`/templates/${id}/variants`),
  createTemplate: (body: { name: string; description?: string | null; variants: TemplateVariant[] }) => apiFetch<Template>('/templates', { method: 'POST', body }),
  updateTemplate: (id: number, body: { name?: string; description?: string | null; variants?: TemplateVariant[] }) => apiFetch<Template>(`/templates/${id}`, { method: 'PUT', body }),
  removeTemplate: (id: number) => apiFetch<void>(`/templates/${id}`, { method: 'DELETE' }),
  /** A copy named "copy X" (spec 5) with the same variants. */
  copyTemplate: (id: number) => apiFetch<Template>(`/templates/${id}/copy`, { method: 'POST' }),

  wordLists: () => apiFetch<ListResult<WordList>>(`/word_lists${q({ page: 1, itemsPerPage: TEMPLATES_PER_PAGE, 'order[id]': 'desc' })}`),
  createWordList: (body: { name: string; words: string[] }) => apiFetch<WordList>('/word_lists', { method: 'POST', body }),
  updateWordList: (id: number, body: { name?: string; words?: string[] }) => apiFetch<WordList>(`/word_lists/${id}`, { method: 'PUT', body }),
  removeWordList: (id: number) => apiFetch<void>(`/word_lists/${id}`, { method: 'DELETE' }),
};
