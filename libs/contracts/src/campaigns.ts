import { z } from 'zod';
import { defineEvent, Topics } from './events';

/**
 * Campaigns (spec 3 Campaign, Template, Variant, Word list, Tag, Campaign variable link, campaignsSenders; spec 4
 * campaign status, actions, filter tabs, halt reasons, types). The API shapes here are what `services/campaigns`
 * answers and what the console reads; no framework imports. docs/decisions/0031-campaigns.md.
 */
const id = z.string().regex(/^\d+$/, 'a decimal id');

/** Spec 4: campaign status numbers. */
export const CampaignStatus = {
  Scheduled: 0,
  Started: 1,
  Processing: 2,
  Paused: 3,
  Aborted: 4,
  Ready: 5,
  Sending: 6,
  Finished: 7,
  Draft: 8,
  Suspended: 9,
  Halt: 10,
  Rejected: 11,
} as const;
export type CampaignStatusValue = (typeof CampaignStatus)[keyof typeof CampaignStatus];
export const CAMPAIGN_STATUSES: readonly CampaignStatusValue[] = Object.freeze(Object.values(CampaignStatus));
/** The status's name (spec 4 wording, snake_case), for logs and the console's keys. */
export const CAMPAIGN_STATUS_NAMES: Readonly<Record<CampaignStatusValue, string>> = Object.freeze({
  0: 'scheduled',
  1: 'started',
  2: 'processing',
  3: 'paused',
  4: 'aborted',
  5: 'ready',
  6: 'sending',
  7: 'finished',
  8: 'draft',
  9: 'suspended',
  10: 'halt',
  11: 'rejected',
});

/** Spec 4: campaign types. */
export const CampaignType = { Outbound: 0, InboundOutbound: 1, Transactional: 2, WhatsApp: 3, Telegram: 4 } as const;
export type CampaignTypeValue = (typeof CampaignType)[keyof typeof CampaignType];
export const CAMPAIGN_TYPES: readonly CampaignTypeValue[] = Object.freeze(Object.values(CampaignType));

/** Spec 9: time zone modes of a campaign's activity time. */
export const CampaignTimezoneMode = { Recipient: 'recipient', Local: 'local', Selected: 'selected' } as const;
export type CampaignTimezoneModeValue = (typeof CampaignTimezoneMode)[keyof typeof CampaignTimezoneMode];
export const CAMPAIGN_TIMEZONE_MODES: readonly CampaignTimezoneModeValue[] = Object.freeze(Object.values(CampaignTimezoneMode));

/** Spec 4: halt reasons, by id (`haltReasonId`); the console translates the key. */
export const CampaignHaltReason = {
  TpsLimitReached: 1,
  NoContactsInTimezone: 2,
  VeryLowClickRate: 3,
  NoClicks: 4,
  PoolsWithoutValidOptions: 5,
  LowBalance: 6,
  AutoPause: 7,
  DailyLimit: 8,
  SenderDailyLimit: 9,
  /**
   * Not in spec 4's list (docs/decisions/0043): streams refused the campaign's batch because its stream is disabled,
   * suspended or gone (0x21/0x22/0x23), or because the account is disabled. The customer (or an operator) fixes it and
   * plays the campaign; the recipients wait with their messageUuids.
   */
  StreamDisabled: 10,
  AccountDisabled: 11,
} as const;
export type CampaignHaltReasonValue = (typeof CampaignHaltReason)[keyof typeof CampaignHaltReason];
export const CAMPAIGN_HALT_REASON_KEYS: Readonly<Record<CampaignHaltReasonValue, string>> = Object.freeze({
  1: 'tps_limit_reached',
  2: 'no_contacts_in_timezone',
  3: 'very_low_click_rate',
  4: 'no_clicks',
  5: 'pools_without_valid_options',
  6: 'low_balance',
  7: 'auto_pause',
  8: 'daily_limit',
  9: 'sender_daily_limit',
  10: 'stream_disabled',
  11: 'account_disabled',
});

/**
 * What a user (or the runner, or a super admin) does to a campaign. The console's actions are `edit`, `delete`,
 * `duplicate`, `analytics`, `pause`, `play`, `ratio` (change the variant ratios), `start` and `abort`; `approve` and
 * `reject` are the super admin's spam review; the rest are the runner's steps (`process`, `send`, `finish`, `halt`,
 * `ready`, `fire` for a scheduled campaign whose time came).
 */
export const CampaignAction = {
  Edit: 'edit',
  Delete: 'delete',
  Duplicate: 'duplicate',
  Analytics: 'analytics',
  Pause: 'pause',
  Play: 'play',
  Ratio: 'ratio',
  Start: 'start',
  Abort: 'abort',
  Approve: 'approve',
  Reject: 'reject',
  Suspend: 'suspend',
  Fire: 'fire',
  Process: 'process',
  Ready: 'ready',
  Send: 'send',
  Halt: 'halt',
  Finish: 'finish',
} as const;
export type CampaignActionValue = (typeof CampaignAction)[keyof typeof CampaignAction];
export const CAMPAIGN_ACTIONS: readonly CampaignActionValue[] = Object.freeze(Object.values(CampaignAction));

const S = CampaignStatus;
const ALL = CAMPAIGN_STATUSES;
const except = (...out: CampaignStatusValue[]): readonly CampaignStatusValue[] => ALL.filter((s) => !out.includes(s));

/**
 * Spec 4, exactly: in which statuses each action is allowed. The console hides what is not allowed; the server
 * refuses it (409 CAMPAIGN_ACTION_NOT_ALLOWED). The first seven rows are the spec's; the rest follow its flow
 * (create draft; start, or start with a schedule; pause; play returns to started) and docs/decisions/0031.
 */
export const CAMPAIGN_ACTION_STATUSES: Readonly<Record<CampaignActionValue, readonly CampaignStatusValue[]>> = Object.freeze({
  edit: [S.Scheduled, S.Draft, S.Suspended, S.Rejected],
  delete: except(S.Aborted),
  duplicate: except(S.Draft, S.Suspended, S.Rejected),
  analytics: except(S.Scheduled, S.Draft),
  pause: [S.Started, S.Processing, S.Ready, S.Sending, S.Halt],
  play: [S.Paused],
  ratio: except(S.Aborted, S.Finished, S.Suspended, S.Rejected),
  // a draft starts; a scheduled one may be started now; a rejected one edited back into shape starts again
  start: [S.Draft, S.Scheduled],
  abort: [S.Scheduled, S.Started, S.Processing, S.Paused, S.Ready, S.Sending, S.Halt],
  approve: [S.Suspended],
  reject: [S.Suspended],
  suspend: [S.Draft, S.Scheduled, S.Started],
  fire: [S.Scheduled],
  process: [S.Started],
  ready: [S.Processing],
  send: [S.Ready, S.Processing],
  halt: [S.Started, S.Processing, S.Ready, S.Sending],
  finish: [S.Started, S.Processing, S.Ready, S.Sending, S.Halt],
});

export function campaignActionAllowed(action: CampaignActionValue, status: CampaignStatusValue): boolean {
  return CAMPAIGN_ACTION_STATUSES[action].includes(status);
}

/** Spec 4: the campaigns list's filter tabs. */
export const CAMPAIGN_FILTER_TABS: Readonly<Record<'all' | 'active' | 'pending' | 'rejected' | 'finished', readonly CampaignStatusValue[]>> = Object.freeze({
  all: ALL,
  active: [S.Scheduled, S.Started, S.Processing, S.Paused, S.Ready, S.Sending, S.Halt],
  pending: [S.Suspended],
  rejected: [S.Rejected],
  finished: [S.Aborted, S.Finished],
});
export type CampaignFilterTab = keyof typeof CAMPAIGN_FILTER_TABS;

/** Spec 9: campaign defaults. */
export const CAMPAIGN_DEFAULTS = Object.freeze({
  unsubscribeAutoAdd: false,
  sendDuplicates: false,
  ctrIndicators: { bad: 1, good: 3 },
  /** Stream-event variants (`campaign/stream_events`): ratio 100, colour #ff9600. */
  streamEventVariant: { ratio: 100, color: '#ff9600' },
  dashboardSize: 4,
});

/** Campaign variable link `missingRule` (spec 3, 0/1): what a recipient without a value gets. */
export const MissingRule = { SkipRecipient: 0, UseDefault: 1 } as const;
export type MissingRuleValue = (typeof MissingRule)[keyof typeof MissingRule];

/** Spec 3 activityTime: working days (1 Monday .. 7 Sunday) and hours "HH:MM", the zone, the dates. */
export interface CampaignActivityTime {
  working_hours: { start: string; end: string } | null;
  working_days: number[];
  /** IANA zone id: the chosen one (mode selected) or the account's (mode local). */
  timezone: string | null;
  timezone_mode: CampaignTimezoneModeValue;
  dates: { start: string | null; end: string | null; scheduled: string | null };
}

/** Spec 3 campaignSettings. */
export interface CampaignSettings {
  max_domains_per_pool: number | null;
  auto_pause_after_messages: number | null;
  auto_pause_after_every_messages: number | null;
  /** [bad, good] percentages 0..100; good not below bad. */
  ctr_indicators: [number, number];
  metadata: { space: string | null; team: string | null; tags: string[] };
}

/** Spec 3 stats fields of a campaign (and of each variant and sender). Money in currency units. */
export interface CampaignStatsDto {
  total: number;
  created: number;
  sent: number;
  delivered: number;
  sentFailed: number;
  undelivered: number;
  dlrFailed: number;
  optedOut: number;
  clicked: number;
  register: number;
  ftd: number;
  clickAvgTime: number | null;
  clickedPercentage: number;
  optedOutPercentage: number;
  ctr: number;
  cost: string;
}

export interface CampaignVariantDto {
  id: number;
  campaign: number;
  name: string;
  text: string;
  color: string;
  ratio: number;
}

export interface CampaignSenderDto {
  id: number;
  campaign: number;
  sender: number;
  /** The sender's value (ID or phone) from the read model, null when the sender is gone. */
  senderValue: string | null;
  ratio: number;
}

export interface CampaignTagDto {
  id: number;
  value: string;
}

export interface CampaignDto {
  id: number;
  name: string;
  description: string | null;
  type: CampaignTypeValue;
  status: CampaignStatusValue;
  /** Whether the status allows each console action (spec 4), so the console shows only those. */
  actions: Record<'edit' | 'delete' | 'duplicate' | 'analytics' | 'pause' | 'play' | 'ratio' | 'start' | 'abort', boolean>;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  country: string | null;
  stream: number | null;
  currency: string;
  cost: string;
  hasShortURL: boolean;
  unsubscribeAutoAdd: boolean;
  sendDuplicates: boolean;
  contactLists: number[];
  campaignVariants: CampaignVariantDto[];
  campaignsSenders: CampaignSenderDto[];
  campaignTags: CampaignTagDto[];
  activityTime: CampaignActivityTime;
  campaignSettings: CampaignSettings;
  declinedReason: string | null;
  haltReasonId: CampaignHaltReasonValue | null;
  /** Malicious keywords the spam review found (suspended campaigns). */
  spamKeywords: string[];
  stats: CampaignStatsDto;
  /**
   * Detail only (`GET /campaigns/{id}`), a sending campaign: when nothing is due now because of its sending hours, the
   * instant (ISO) its next waiting recipient is due (modes local and selected: the next window opening); else null or
   * absent (docs/decisions/0186).
   */
  waitingUntil?: string | null;
  /** With `waitingUntil`: the time zone of that next recipient (its own, when known), which the console shows it in. */
  waitingZone?: string | null;
}

export interface TemplateVariantDto {
  id: number;
  template: number;
  name: string;
  text: string;
  ratio: number;
  color: string;
}

export interface TemplateDto {
  id: number;
  name: string;
  description: string | null;
  variants: TemplateVariantDto[];
  createdAt: string;
  updatedAt: string;
}

export interface WordDto {
  id: number;
  wordList: number;
  value: string;
}

export interface WordListDto {
  id: number;
  name: string;
  words: WordDto[];
  createdAt: string;
}

export interface CampaignVariableLinkParams {
  domains?: number[];
  domain_pool?: number | null;
  expired?: number | null;
  offer?: number | null;
  section?: string | null;
  id?: number | null;
}

export interface CampaignVariableDto {
  id: number;
  campaign: number;
  /** The contacts variable's id and name (`firstName`, `shorturl`, a custom field). */
  variable: number;
  variableName: string;
  defaultValue: string | null;
  missingRule: MissingRuleValue;
  params: CampaignVariableLinkParams;
}

/** `campaigns.campaign.status_changed`: every status change, from one place (CampaignStatusService). */
export const CampaignStatusChangedV1 = defineEvent({
  type: 'campaigns.campaign.status_changed',
  version: 1,
  topic: Topics.Campaigns,
  key: (d) => d.campaignId,
  schema: z.object({
    campaignId: id,
    accountId: id,
    from: z.number().int().min(0).max(11),
    to: z.number().int().min(0).max(11),
    action: z.string(),
    reason: z.string().nullable(),
    haltReasonId: z.number().int().nullable(),
    changedAt: z.string(),
  }),
});

/** A campaign was created, edited or deleted: its settings, so the statistics or links service can keep a read model. */
export const CampaignChangedV1 = defineEvent({
  type: 'campaigns.campaign.changed',
  version: 1,
  topic: Topics.Campaigns,
  key: (d) => d.campaignId,
  schema: z.object({
    campaignId: id,
    accountId: id,
    name: z.string(),
    type: z.number().int(),
    status: z.number().int(),
    streamId: id.nullable(),
    deleted: z.boolean(),
    updatedAt: z.string(),
  }),
});

/**
 * `unsubscribeAutoAdd` (docs/decisions/0043): a recipient of a campaign with "add opt-outs to the blocked numbers"
 * confirmed its opt-out link, so campaigns asks contacts to put the number on the account's blacklist (contacts owns
 * the blacklist; it announces the change with `contacts.black_list.changed` as for every other entry).
 */
export const CampaignOptOutBlockRequestedV1 = defineEvent({
  type: 'campaigns.opt_out.block_requested',
  version: 1,
  topic: Topics.Campaigns,
  key: (d) => `${d.accountId}:${d.phone}`,
  schema: z.object({
    accountId: id,
    campaignId: id,
    /** E.164. */
    phone: z.string().regex(/^\+\d{6,16}$/),
    optedOutAt: z.string(),
  }),
});

export const CampaignsEvents = [CampaignStatusChangedV1, CampaignChangedV1, CampaignOptOutBlockRequestedV1] as const;
