import { apiFetch } from '../../providers/http';
import type { ListResult } from '../team/types';

export type AccountStatus = 'active' | 'restrict' | 'disable' | 'delete';
export const ACCOUNT_STATUSES: AccountStatus[] = ['active', 'restrict', 'disable', 'delete'];

/** spec 3, Account: customSettings flags and limits. */
export interface CustomSettings {
  balance_limit: number;
  streams_max_messages_per_day: number | null;
  allow_inbox: boolean;
  allow_whatsapp: boolean;
  allow_telegram_bot: boolean;
  allow_telegram_private: boolean;
  enable_spam_restriction: boolean;
  allow_spintax_ai: boolean;
  allow_demo_stream: boolean;
  allow_transactional_campaign: boolean;
  allow_api_keys: boolean;
  streams_validate_senders: boolean;
  allow_campaign_whatsapp: boolean;
  allow_generative_ai: boolean;
}
export const FEATURE_FLAGS = [
  'allow_inbox',
  'allow_whatsapp',
  'allow_campaign_whatsapp',
  'allow_telegram_bot',
  'allow_telegram_private',
  'allow_transactional_campaign',
  'allow_demo_stream',
  'allow_api_keys',
  'allow_generative_ai',
  'allow_spintax_ai',
  'enable_spam_restriction',
  'streams_validate_senders',
] as const;

export const GENERATIVE_SERVICES = ['openai', 'gemini', 'ollama'] as const;
export interface GenSettings {
  allow_spintax: boolean;
  allow_conversations: boolean;
  allow_automations: boolean;
  default_generative_service: (typeof GENERATIVE_SERVICES)[number];
}
export const GEN_FLAGS = ['allow_spintax', 'allow_conversations', 'allow_automations'] as const;

export interface Customer {
  id: number;
  customId: string | null;
  portalId: string;
  name: string;
  shortName: string | null;
  active: number;
  status: AccountStatus;
  balance: number;
  balanceMicros: string;
  currency: string;
  currencySign: string;
  tps: number;
  createdAt: string;
  customSettings: CustomSettings;
  genSettings: GenSettings;
}

export interface BalanceEntry {
  id: number;
  kind: string;
  amount: number;
  currency: string;
  balanceAfter: number;
  reason: string;
  createdAt: string;
}

export interface CustomerQuery {
  page: number;
  itemsPerPage: number;
  order: Record<string, 'asc' | 'desc'>;
  search?: string;
  status?: AccountStatus[];
  active?: 0 | 1;
}

export interface DropdownOption {
  key: string;
  text: string;
  value: string;
}

/** spec 7, "Users and accounts": the super-admin calls of the accounts service. */
export const superAdminApi = {
  customers: (q: CustomerQuery) => apiFetch<ListResult<Customer>>('/customers/superadmin/all', { method: 'POST', body: q }),
  approve: (id: number) => apiFetch<Customer>('/customers/superadmin/approve', { method: 'POST', body: { customer_id: id } }),
  setStatus: (id: number, status: AccountStatus) => apiFetch<Customer>('/customers/status', { method: 'POST', body: { customer_id: id, status } }),
  update: (id: number, body: { name?: string; shortName?: string | null; tps?: number; customSettings?: Partial<CustomSettings>; genSettings?: Partial<GenSettings> }) =>
    apiFetch<Customer>(`/customers/${id}`, { method: 'PUT', body }),
  create: (body: { name: string; shortName?: string | null; currency: string; tps?: number; active: 0 | 1 }) =>
    apiFetch<Customer>('/customers', { method: 'POST', body }),
  adjustBalance: (id: number, amount: string, reason: string) =>
    apiFetch<{ balance: number; currency: string; currencySign: string }>(`/customers/${id}/balance`, { method: 'POST', body: { amount, reason } }),
  balanceEntries: (id: number) => apiFetch<ListResult<BalanceEntry>>(`/customers/${id}/balance_entries?page=1&itemsPerPage=5&order[id]=desc`),
  dailyUsage: () => apiFetch<{ dailyLimit: number | null; dailyUsage: number }>('/daily_usage_and_limit'),
  currencies: () => apiFetch<ListResult<DropdownOption>>('/customers/get_dropdown_data', { method: 'POST', body: { entity: 'currencies' } }),
};

/** Spec 1: amounts show with the account currency sign (EUR €, USD $). */
export function money(amount: number, currency: string, locale: string): string {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: 'narrowSymbol', maximumFractionDigits: 6, minimumFractionDigits: 2 }).format(amount);
  } catch (_e) {
    return `${amount} ${currency}`;
  }
}
