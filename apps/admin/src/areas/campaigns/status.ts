/**
 * Spec 4 "Campaign status (number)": the statuses, the actions each one allows and the filter tabs. Provisional
 * copy until libs/contracts/src/campaigns.ts lands; the server refuses a disallowed action either way.
 */
export const CampaignStatus = {
  scheduled: 0,
  started: 1,
  processing: 2,
  paused: 3,
  aborted: 4,
  ready: 5,
  sending: 6,
  finished: 7,
  draft: 8,
  suspended: 9,
  halt: 10,
  rejected: 11,
} as const;
export type CampaignStatusName = keyof typeof CampaignStatus;
export type CampaignStatusValue = (typeof CampaignStatus)[CampaignStatusName];

export const STATUS_NAMES = Object.fromEntries(Object.entries(CampaignStatus).map(([k, v]) => [v, k])) as Record<number, CampaignStatusName>;

export type CampaignAction = 'edit' | 'delete' | 'duplicate' | 'analytics' | 'pause' | 'play' | 'abort' | 'start' | 'editRatio';

const S = CampaignStatus;
const ALL = Object.values(S) as number[];
const except = (...out: number[]) => ALL.filter((s) => !out.includes(s));

export const ACTIONS: Record<CampaignAction, readonly number[]> = {
  edit: [S.scheduled, S.draft, S.suspended, S.rejected],
  delete: except(S.aborted),
  duplicate: except(S.draft, S.suspended, S.rejected),
  analytics: except(S.scheduled, S.draft),
  pause: [S.started, S.processing, S.ready, S.sending, S.halt],
  play: [S.paused],
  abort: [S.scheduled, S.started, S.processing, S.paused, S.ready, S.sending, S.halt],
  start: [S.draft],
  editRatio: except(S.aborted, S.finished, S.suspended, S.rejected),
};

export const can = (action: CampaignAction, status: number): boolean => ACTIONS[action].includes(status);

export type FilterTab = 'all' | 'active' | 'pending' | 'rejected' | 'finished';
export const FILTER_TABS: Record<FilterTab, readonly number[] | null> = {
  all: null,
  active: [S.scheduled, S.started, S.processing, S.paused, S.ready, S.sending, S.halt],
  pending: [S.suspended],
  rejected: [S.rejected],
  finished: [S.aborted, S.finished],
};

/** Spec 4 halt reasons, by id. */
export const HALT_REASONS = ['tpsLimit', 'noContactsInTimezone', 'veryLowClickRate', 'noClicks', 'noValidPools', 'lowBalance', 'autoPause', 'dailyLimit', 'senderDailyLimit'] as const;

/** Spec 4 campaign types. */
export const CampaignType = { outbound: 0, inboundOutbound: 1, transactional: 2, whatsapp: 3, telegram: 4 } as const;
export const TYPE_NAMES = Object.fromEntries(Object.entries(CampaignType).map(([k, v]) => [v, k])) as Record<number, keyof typeof CampaignType>;
