/**
 * The campaigns API's shapes as the console reads them. Provisional (spec 3 and 7) until the campaigns service's
 * contracts land in libs/contracts/src/campaigns.ts; then these become re-exports of those.
 */
export interface ListResult<T> {
  items: T[];
  total: number;
}

export interface ActivityTime {
  working_hours: { start: string; end: string };
  /** ISO week days 1 (Monday) .. 7 (Sunday). */
  working_days: number[];
  timezone_mode: 'recipient' | 'local' | 'selected';
  timezone: string | null;
  dates: { start: string | null; end: string | null; scheduled: string | null };
}

export interface CampaignSettings {
  max_domains_per_pool?: number | null;
  auto_pause_after_messages: number | null;
  auto_pause_after_every_messages: number | null;
  ctr_indicators: [number, number];
  metadata?: Record<string, unknown>;
}

export interface CampaignVariant {
  id?: number;
  name: string;
  text: string;
  color: string;
  ratio: number;
}

export interface CampaignSender {
  sender: number;
  ratio: number;
}

export interface CampaignStats {
  created: number;
  sent: number;
  delivered: number;
  sentFailed: number;
  undelivered: number;
  dlrFailed: number;
  optedOut: number;
  clicked: number;
  total: number;
  cost: number;
}

export interface Campaign extends Partial<CampaignStats> {
  id: number;
  name: string;
  description: string | null;
  type: number;
  status: number;
  createdAt: string;
  startedAt?: string | null;
  stream: number | null;
  hasShortURL?: boolean;
  unsubscribeAutoAdd: number;
  sendDuplicates: number;
  contactLists: number[];
  campaignVariants: CampaignVariant[];
  campaignsSenders: CampaignSender[];
  campaignTags: number[];
  activityTime: ActivityTime;
  campaignSettings: CampaignSettings;
  declinedReason: string | null;
  haltReasonId: number | null;
  currency?: string;
}

export type CampaignInput = Omit<Campaign, 'id' | 'status' | 'createdAt' | 'declinedReason' | 'haltReasonId' | keyof CampaignStats>;

export interface VariantStats extends CampaignStats {
  name: string;
  color: string;
}

export interface TemplateVariant {
  id?: number;
  name: string;
  text: string;
  ratio: number;
  color: string;
}

export interface Template {
  id: number;
  name: string;
  description: string | null;
  variants: TemplateVariant[];
}

export interface WordList {
  id: number;
  name: string;
  words: Array<{ id?: number; value: string }>;
}

export interface Tag {
  id: number;
  value: string;
}

export interface EstimatedCost {
  items: Array<{ country: string; contacts: number; parts: number; cost: number }>;
  total: { contacts: number; cost: number };
  currency: string;
}

export interface UnreachableTimezones {
  items: Array<{ timezone: string; country: string | null; contacts: number }>;
}
