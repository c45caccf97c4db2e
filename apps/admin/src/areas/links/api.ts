import { apiFetch } from '../../providers/http';
import type { ServerQuery } from '../../ui/table/useTable';
import type { CampaignAddDomainResult, Domain, DomainBulkResult, DomainOption, DomainPool, DomainPoolOption, DomainsDashboard, ListResult, Offer, OfferOption, PoolsDashboard } from './types';

/** Permission strings of spec 6 these screens check. */
export const P = {
  DomainView: 'DOMAIN_VIEW',
  DomainAddEdit: 'DOMAIN_ADD_EDIT',
  DomainRemove: 'DOMAIN_REMOVE',
  UrlOfferView: 'URL_OFFER_VIEW',
  UrlOfferAddEdit: 'URL_OFFER_ADD_EDIT',
  UrlOfferRemove: 'URL_OFFER_REMOVE',
} as const;

/** Spec 9: offers 500 a page, dropdowns 2000. */
export const OFFERS_PER_PAGE = 500;

const query = (q: ServerQuery) => {
  const parts = [`page=${q.page}`, `itemsPerPage=${q.perPage}`, `order[${q.sort.field}]=${q.sort.order}`];
  for (const [k, v] of Object.entries(q.filter)) if (v !== undefined && v !== '') parts.push(`${k}=${encodeURIComponent(String(v))}`);
  return parts.join('&');
};

/** The calls of spec 7: /domains (bulk, archive, messages_limit, dashboard, dropdown), /domain_pools, /offers. */
export const linksApi = {
  domains: (q: ServerQuery) => apiFetch<ListResult<Domain>>(`/domains?${query(q)}`),
  domainsDropdown: () => apiFetch<ListResult<DomainOption>>('/domains/dropdown'),
  domainsDashboard: () => apiFetch<DomainsDashboard>('/domains/dashboard'),
  addDomains: (domains: string[], skipDuplicates: boolean) => apiFetch<DomainBulkResult>('/domains/bulk', { method: 'POST', body: { domains, skipDuplicates } }),
  bulkAction: (action: string, ids: number[], messagesLimit?: number | null) =>
    apiFetch<{ affected: number; items: Domain[] }>('/domains/bulk_action', { method: 'POST', body: { action, ids, ...(action === 'set_limit' ? { messagesLimit } : {}) } }),
  archive: (id: number, archived: boolean) => apiFetch<Domain>(`/domains/archive/${id}`, { method: 'POST', body: { archived } }),
  check: (id: number) => apiFetch<Domain>(`/domains/${id}/check`, { method: 'POST' }),
  getLimit: () => apiFetch<{ limit: number | null }>('/domains/messages_limit'),
  setLimit: (limit: number | null) => apiFetch<{ limit: number | null }>('/domains/messages_limit', { method: 'POST', body: { limit } }),
  pools: () => apiFetch<ListResult<DomainPool>>('/domain_pools?page=1&itemsPerPage=2000&order[id]=desc'),
  poolsDropdown: () => apiFetch<ListResult<DomainPoolOption>>('/domain_pools/dropdown'),
  poolsDashboard: () => apiFetch<PoolsDashboard>('/domain_pools/dashboard'),
  poolDomains: (id: number) => apiFetch<ListResult<Domain>>(`/domain_pools/${id}/domains`),
  createPool: (body: Record<string, unknown>) => apiFetch<DomainPool>('/domain_pools', { method: 'POST', body }),
  updatePool: (id: number, body: Record<string, unknown>) => apiFetch<DomainPool>(`/domain_pools/${id}`, { method: 'PUT', body }),
  addToPool: (id: number, domains: number[]) => apiFetch<DomainPool>(`/domain_pools/${id}/domains`, { method: 'POST', body: { domains } }),
  removeFromPool: (id: number, domainId: number) => apiFetch<DomainPool>(`/domain_pools/${id}/domains/${domainId}`, { method: 'DELETE' }),
  removePool: (id: number) => apiFetch<void>(`/domain_pools/${id}`, { method: 'DELETE' }),
  offers: () => apiFetch<ListResult<Offer>>(`/offers?page=1&itemsPerPage=${OFFERS_PER_PAGE}&order[id]=desc`),
  createOffer: (body: Record<string, unknown>) => apiFetch<Offer>('/offers', { method: 'POST', body }),
  updateOffer: (id: number, body: Record<string, unknown>) => apiFetch<Offer>(`/offers/${id}`, { method: 'PUT', body }),
  removeOffer: (id: number) => apiFetch<void>(`/offers/${id}`, { method: 'DELETE' }),
  offersDropdown: () => apiFetch<ListResult<OfferOption>>('/offers/dropdown'),
  /** The campaign wizard's add domain (spec 7 `campaigns/add/domain`): the domains, then an existing or a new pool for them. */
  campaignAddDomain: (body: { domains: string[]; skipDuplicates: boolean; pool?: number; newPool?: { name: string; description: string } }) =>
    apiFetch<CampaignAddDomainResult>('/campaigns/add/domain', { method: 'POST', body }),
};
