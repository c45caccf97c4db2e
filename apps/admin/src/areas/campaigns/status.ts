/**
 * Spec 4 "Campaign status (number)" for the console, from libs/contracts/src/campaigns.ts: the statuses, the actions
 * each one allows, the filter tabs and the halt reasons. The server refuses a disallowed action either way
 * (409 CAMPAIGN_ACTION_NOT_ALLOWED).
 */
import {
  CAMPAIGN_ACTION_STATUSES,
  CAMPAIGN_FILTER_TABS,
  CAMPAIGN_HALT_REASON_KEYS,
  CAMPAIGN_STATUS_NAMES,
  CampaignStatus as C,
  CampaignType as T,
  type CampaignFilterTab,
  type CampaignHaltReasonValue,
  type CampaignStatusValue,
} from '@switchboard/contracts/src/campaigns';
import type { Campaign } from './types';

/** The statuses under the console's (camelCase) names. */
export const CampaignStatus = {
  scheduled: C.Scheduled,
  started: C.Started,
  processing: C.Processing,
  paused: C.Paused,
  aborted: C.Aborted,
  ready: C.Ready,
  sending: C.Sending,
  finished: C.Finished,
  draft: C.Draft,
  suspended: C.Suspended,
  halt: C.Halt,
  rejected: C.Rejected,
} as const;

export const STATUS_NAMES: Readonly<Record<number, string>> = CAMPAIGN_STATUS_NAMES;

/** The console's actions on a campaign (spec 4). */
export type CampaignAction = 'edit' | 'delete' | 'duplicate' | 'analytics' | 'pause' | 'play' | 'ratio' | 'start' | 'abort';

/**
 * Whether the campaign's status allows the action: the server's own answer (`actions`) when the campaign carries it,
 * else the shared table.
 */
export function can(action: CampaignAction, c: Pick<Campaign, 'status'> & { actions?: Partial<Campaign['actions']> }): boolean {
  const told = c.actions?.[action];
  if (typeof told === 'boolean') return told;
  return CAMPAIGN_ACTION_STATUSES[action].includes(c.status as CampaignStatusValue);
}

export type FilterTab = CampaignFilterTab;
/** The tab's statuses; `null` for all (no filter sent). */
export const FILTER_TABS: Readonly<Record<FilterTab, readonly number[] | null>> = { ...CAMPAIGN_FILTER_TABS, all: null };

/** A halt reason id to its translation key (`campaigns.haltReasons.<key>`). */
export const haltReasonKey = (id: number | null | undefined): string | undefined => (id == null ? undefined : (CAMPAIGN_HALT_REASON_KEYS[id as CampaignHaltReasonValue] ?? 'unknown'));

/** Spec 4 campaign types under the console's names. */
export const CampaignType = { outbound: T.Outbound, inboundOutbound: T.InboundOutbound, transactional: T.Transactional, whatsapp: T.WhatsApp, telegram: T.Telegram } as const;
export const TYPE_NAMES = Object.fromEntries(Object.entries(CampaignType).map(([k, v]) => [v, k])) as Record<number, keyof typeof CampaignType>;
