import { apiFetch } from '../../providers/http';
import { COUNTRIES_PER_PAGE, CUSTOMERS_PER_PAGE } from './constants';
import type { AdminSender, Channel, Country, CountryRoute, CurrentRouting, CustomerOption, ListResult, RoutingHistoryRow, Vendor, VendorInput } from './types';

const q = (params: Record<string, string | number | undefined>) => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') s.set(k, String(v));
  return s.toString();
};

/** The super-admin calls of spec 7: /service_type_manager, /channels, /senders/superadmin. */
export const routingApi = {
  vendors: () => apiFetch<ListResult<Vendor>>('/service_type_manager/vendors'),
  createVendor: (body: VendorInput) => apiFetch<Vendor>('/service_type_manager/vendor', { method: 'POST', body }),
  updateVendor: (id: number, body: Partial<VendorInput>) => apiFetch<Vendor>(`/service_type_manager/vendor/${id}`, { method: 'PUT', body }),
  refresh: () => apiFetch<{ refreshed: true; vendors: number }>('/service_type_manager/refresh', { method: 'POST' }),

  globalRoutes: () => apiFetch<ListResult<CountryRoute>>('/service_type_manager/countries_mapping'),
  customerRoutes: (customerId: number) => apiFetch<ListResult<CountryRoute>>(`/service_type_manager/customer_countries_mapping?customerId=${customerId}`),
  setGlobalRoute: (body: { iso2: string; serviceType: string; vendorIds: string[] }) =>
    apiFetch<CountryRoute | null>('/service_type_manager/countries_mapping', { method: 'PUT', body }),
  setCustomerRoute: (body: { customerId: string; iso2: string; serviceType: string; vendorIds: string[] }) =>
    apiFetch<CountryRoute | null>('/service_type_manager/customer_countries_mapping', { method: 'PUT', body }),
  currentRouting: (params: { customerId?: number; iso2?: string; serviceType: string }) =>
    apiFetch<CurrentRouting>(`/service_type_manager/current_routing?${q({ customerId: params.customerId, iso2: params.iso2, serviceType: params.serviceType })}`),
  history: (params: { page: number; perPage: number; customerId?: number; iso2?: string }) =>
    apiFetch<ListResult<RoutingHistoryRow>>(`/service_type_manager/routing_history?${q({ page: params.page, itemsPerPage: params.perPage, 'order[id]': 'desc', customerId: params.customerId, iso2: params.iso2 })}`),

  channels: () => apiFetch<ListResult<Channel>>('/channels'),
  updateChannel: (id: number, body: Partial<Pick<Channel, 'name' | 'active' | 'stsMethods' | 'routingProvider'>>) => apiFetch<Channel>(`/channels/${id}`, { method: 'PUT', body }),
  syncChannels: () => apiFetch<{ created: number }>('/channels/superadmin/sync', { method: 'POST' }),

  senders: (params: { page: number; perPage: number; sort: { field: string; order: string }; approved?: number }) =>
    apiFetch<ListResult<AdminSender>>(`/senders/superadmin?${q({ page: params.page, itemsPerPage: params.perPage, [`order[${params.sort.field}]`]: params.sort.order, approved: params.approved })}`),
  decide: (id: number, body: { approved: number; declinedReason?: string | null }) => apiFetch<AdminSender>(`/senders/superadmin/${id}`, { method: 'PUT', body }),

  countries: () => apiFetch<ListResult<Country>>(`/countries?page=1&itemsPerPage=${COUNTRIES_PER_PAGE}`),
  customers: () => apiFetch<ListResult<CustomerOption>>(`/customers/dropdown?page=1&itemsPerPage=${CUSTOMERS_PER_PAGE}`),
};

export interface MaliciousKeyword {
  id: number;
  word: string;
  /** 1 whole word, 2 anywhere in the text. */
  type: number;
}

/** CRUD /malicious_keywords/global (spec 7): every send is checked against this list. */
export const keywordsApi = {
  list: (params: { page: number; perPage: number; sort: { field: string; order: string }; search?: string }) => {
    const s = new URLSearchParams({ page: String(params.page), itemsPerPage: String(params.perPage), [`order[${params.sort.field}]`]: params.sort.order });
    if (params.search) s.set('search', params.search);
    return apiFetch<ListResult<MaliciousKeyword>>(`/malicious_keywords/global?${s.toString()}`);
  },
  create: (body: { word: string; type: number }) => apiFetch<MaliciousKeyword>('/malicious_keywords/global', { method: 'POST', body }),
  update: (id: number, body: { word: string; type: number }) => apiFetch<MaliciousKeyword>(`/malicious_keywords/global/${id}`, { method: 'PUT', body }),
  remove: (id: number) => apiFetch<void>(`/malicious_keywords/global/${id}`, { method: 'DELETE' }),
};
