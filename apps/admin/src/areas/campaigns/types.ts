/**
 * The campaigns API's shapes, from their one source (libs/contracts/src/campaigns.ts), under the console's names.
 * Only what the console itself sends (the create and edit body) and the few answers the contracts do not name yet
 * (cost estimate, unreachable time zones) are described here.
 */
import type {
  CampaignActivityTime,
  CampaignDto,
  CampaignSettings as CampaignSettingsDto,
  CampaignStatsDto,
  CampaignTagDto,
  CampaignVariableLinkParams,
  CampaignVariantDto,
  TemplateDto,
  TemplateVariantDto,
  WordListDto,
} from '@switchboard/contracts/src/campaigns';

export interface ListResult<T> {
  items: T[];
  total: number;
}

export type Campaign = CampaignDto;
export type CampaignStats = CampaignStatsDto;
export type ActivityTime = CampaignActivityTime;
export type CampaignSettings = CampaignSettingsDto;
export type CampaignVariant = CampaignVariantDto;
export type Tag = CampaignTagDto;
export type Template = TemplateDto;
export type WordList = WordListDto;

/** A template variant as the console sends it (no id for a new one). */
export type TemplateVariantInput = Pick<TemplateVariantDto, 'name' | 'text' | 'ratio' | 'color'> & { id?: number };
export type TemplateVariant = TemplateVariantInput;

/** `GET /campaigns/{id}/analytics`: the counters per variant and per sender. */
export type VariantStats = CampaignVariantDto & { stats: CampaignStatsDto };
export interface CampaignAnalytics {
  id: number;
  status: number;
  stats: CampaignStatsDto;
  variants: VariantStats[];
  senders: Array<{ id: number; sender: number; senderValue: string | null; ratio: number; stats: CampaignStatsDto }>;
}

/** The create and edit body: the campaign's own fields, tags and senders by id. */
export interface CampaignInput {
  name: string;
  description: string | null;
  type: number;
  stream: number | null;
  campaignTags: number[];
  contactLists: number[];
  sendDuplicates: boolean;
  unsubscribeAutoAdd: boolean;
  campaignVariants: Array<{ id?: number; name: string; text: string; color: string; ratio: number }>;
  campaignsSenders: Array<{ sender: number; ratio: number }>;
  /** Variable links to set (upserted by variable; link params are kept). */
  campaignVariables?: Array<{ variable: number; variableName: string; defaultValue: string | null; missingRule: 0 | 1; params?: CampaignVariableLinkParams }>;
  activityTime: ActivityTime;
  campaignSettings: Pick<CampaignSettings, 'auto_pause_after_messages' | 'auto_pause_after_every_messages' | 'ctr_indicators'>;
}

/** `GET /campaigns/get_estimated_cost?campaign=`: `pending` until contacts has counted the audience. */
export interface EstimatedCost {
  status: 'pending' | 'ready' | 'error';
  error: string | null;
  currency: string;
  total: number;
  segments: number;
  totalCostMicros: number;
  countries: Array<{ country: string; recipients: number; priceMicros: number | null; costMicros: number }>;
}

/** `GET /campaigns/get_unreachable_timezones?campaign=`. */
export interface UnreachableTimezones {
  status: 'pending' | 'ready' | 'error';
  items: Array<{ timezone: string; count: number }>;
}

/** A campaign variable link (`/campaigns/{id}/variables`). */
export interface CampaignVariableLink {
  id: number;
  campaign: number;
  variable: number;
  variableName: string;
  defaultValue: string | null;
  missingRule: number;
  params: CampaignVariableLinkParams | null;
}
