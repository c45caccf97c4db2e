import {
  CAMPAIGN_DEFAULTS,
  campaignActionAllowed,
  type CampaignActivityTime,
  type CampaignDto,
  type CampaignHaltReasonValue,
  type CampaignSenderDto,
  type CampaignSettings,
  type CampaignStatsDto,
  type CampaignStatusValue,
  type CampaignTagDto,
  type CampaignTimezoneModeValue,
  type CampaignTypeValue,
  type CampaignVariantDto,
} from '@switchboard/contracts';
import type { EntityManager } from 'typeorm';

/** A campaign row as the queries below select it (bigints as text). */
export interface CampaignRow {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  type: number;
  status: number;
  country: string | null;
  stream_id: string | null;
  currency: string;
  has_short_url: boolean;
  unsubscribe_auto_add: boolean;
  send_duplicates: boolean;
  contact_list_ids: string[];
  activity_time: Partial<CampaignActivityTime>;
  campaign_settings: Partial<CampaignSettings>;
  timezone_mode: string;
  timezone: string | null;
  working_days: number[];
  working_hours_start: string | null;
  working_hours_end: string | null;
  start_date: Date | null;
  end_date: Date | null;
  scheduled_at: Date | null;
  stream_event_id: string | null;
  variables_mapping: Record<string, unknown>;
  declined_reason: string | null;
  halt_reason_id: number | null;
  spam_keywords: string[];
  total: string;
  created: string;
  sent: string;
  delivered: string;
  sent_failed: string;
  undelivered: string;
  dlr_failed: string;
  opted_out: string;
  clicked: string;
  register: string;
  ftd: string;
  click_time_total_ms: string;
  cost_micros: string;
  started_at: Date | null;
  finished_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const CAMPAIGN_COLUMNS = `c.id::text, c.account_id::text, c.name, c.description, c.type, c.status, c.country, c.stream_id::text, c.currency, c.has_short_url,
  c.unsubscribe_auto_add, c.send_duplicates, c.contact_list_ids::text[] AS contact_list_ids, c.activity_time, c.campaign_settings, c.timezone_mode, c.timezone,
  c.working_days::int[] AS working_days, to_char(c.working_hours_start, 'HH24:MI') AS working_hours_start, to_char(c.working_hours_end, 'HH24:MI') AS working_hours_end,
  c.start_date, c.end_date, c.scheduled_at, c.stream_event_id::text, c.variables_mapping, c.declined_reason, c.halt_reason_id, c.spam_keywords,
  c.total::text, c.created::text, c.sent::text, c.delivered::text, c.sent_failed::text, c.undelivered::text, c.dlr_failed::text, c.opted_out::text,
  c.clicked::text, c.register::text, c.ftd::text, c.click_time_total_ms::text, c.cost_micros::text, c.started_at, c.finished_at, c.created_at, c.updated_at`;

export interface VariantRow {
  id: string;
  campaign_id: string;
  name: string;
  text: string;
  color: string;
  ratio: number;
  position: number;
  sent: string;
  delivered: string;
  sent_failed: string;
  undelivered: string;
  dlr_failed: string;
  opted_out: string;
  clicked: string;
  cost_micros: string;
}

export interface SenderLinkRow {
  id: string;
  campaign_id: string;
  sender_id: string;
  sender_value: string | null;
  ratio: number;
  position: number;
  sent: string;
  delivered: string;
  sent_failed: string;
  undelivered: string;
  cost_micros: string;
}

export interface TagLinkRow {
  campaign_id: string;
  id: string;
  value: string;
}

/** Micro-units as a decimal string of currency units: 1234567 -> "1.234567", trailing zeros kept to two places. */
export function formatMicros(micros: string | number | bigint): string {
  const n = BigInt(micros);
  const neg = n < 0n;
  const abs = neg ? -n : n;
  const whole = abs / 1_000_000n;
  let frac = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  if (frac.length < 2) frac = frac.padEnd(2, '0');
  return `${neg ? '-' : ''}${whole}.${frac}`;
}

const pct = (part: number, whole: number): number => (whole > 0 ? Math.round((part / whole) * 10_000) / 100 : 0);

export function statsOf(r: Pick<CampaignRow, 'total' | 'created' | 'sent' | 'delivered' | 'sent_failed' | 'undelivered' | 'dlr_failed' | 'opted_out' | 'clicked' | 'register' | 'ftd' | 'click_time_total_ms' | 'cost_micros'>): CampaignStatsDto {
  const n = (s: string) => Number(s);
  const delivered = n(r.delivered);
  const clicked = n(r.clicked);
  return {
    total: n(r.total),
    created: n(r.created),
    sent: n(r.sent),
    delivered,
    sentFailed: n(r.sent_failed),
    undelivered: n(r.undelivered),
    dlrFailed: n(r.dlr_failed),
    optedOut: n(r.opted_out),
    clicked,
    register: n(r.register),
    ftd: n(r.ftd),
    clickAvgTime: clicked > 0 ? Math.round(n(r.click_time_total_ms) / clicked / 1000) : null,
    clickedPercentage: pct(clicked, delivered),
    optedOutPercentage: pct(n(r.opted_out), delivered),
    ctr: pct(clicked, delivered),
    cost: formatMicros(r.cost_micros),
  };
}

export function activityTimeOf(r: CampaignRow): CampaignActivityTime {
  return {
    working_hours: r.working_hours_start && r.working_hours_end ? { start: r.working_hours_start, end: r.working_hours_end } : null,
    working_days: r.working_days,
    timezone: r.timezone,
    timezone_mode: r.timezone_mode as CampaignTimezoneModeValue,
    dates: {
      start: r.start_date ? new Date(r.start_date).toISOString() : null,
      end: r.end_date ? new Date(r.end_date).toISOString() : null,
      scheduled: r.scheduled_at ? new Date(r.scheduled_at).toISOString() : null,
    },
  };
}

export function settingsOf(r: CampaignRow): CampaignSettings {
  const s = r.campaign_settings ?? {};
  const m = (s.metadata ?? {}) as Partial<CampaignSettings['metadata']>;
  return {
    max_domains_per_pool: s.max_domains_per_pool ?? null,
    auto_pause_after_messages: s.auto_pause_after_messages ?? null,
    auto_pause_after_every_messages: s.auto_pause_after_every_messages ?? null,
    ctr_indicators: s.ctr_indicators ?? [CAMPAIGN_DEFAULTS.ctrIndicators.bad, CAMPAIGN_DEFAULTS.ctrIndicators.good],
    metadata: { space: m.space ?? null, team: m.team ?? null, tags: m.tags ?? [] },
  };
}

export function variantDto(v: VariantRow): CampaignVariantDto {
  return { id: Number(v.id), campaign: Number(v.campaign_id), name: v.name, text: v.text, color: v.color, ratio: v.ratio };
}

export function senderDto(s: SenderLinkRow): CampaignSenderDto {
  return { id: Number(s.id), campaign: Number(s.campaign_id), sender: Number(s.sender_id), senderValue: s.sender_value, ratio: s.ratio };
}

export function toCampaignDto(r: CampaignRow, variants: VariantRow[], senders: SenderLinkRow[], tags: TagLinkRow[]): CampaignDto {
  const status = r.status as CampaignStatusValue;
  return {
    id: Number(r.id),
    name: r.name,
    description: r.description,
    type: r.type as CampaignTypeValue,
    status,
    actions: {
      edit: campaignActionAllowed('edit', status),
      delete: campaignActionAllowed('delete', status),
      duplicate: campaignActionAllowed('duplicate', status),
      analytics: campaignActionAllowed('analytics', status),
      pause: campaignActionAllowed('pause', status),
      play: campaignActionAllowed('play', status),
      ratio: campaignActionAllowed('ratio', status),
      start: campaignActionAllowed('start', status),
      abort: campaignActionAllowed('abort', status),
    },
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
    startedAt: r.started_at ? new Date(r.started_at).toISOString() : null,
    finishedAt: r.finished_at ? new Date(r.finished_at).toISOString() : null,
    country: r.country,
    stream: r.stream_id ? Number(r.stream_id) : null,
    currency: r.currency,
    cost: formatMicros(r.cost_micros),
    hasShortURL: r.has_short_url,
    unsubscribeAutoAdd: r.unsubscribe_auto_add,
    sendDuplicates: r.send_duplicates,
    contactLists: r.contact_list_ids.map(Number),
    campaignVariants: variants.map(variantDto),
    campaignsSenders: senders.map(senderDto),
    campaignTags: tags.map((t) => ({ id: Number(t.id), value: t.value }) satisfies CampaignTagDto),
    activityTime: activityTimeOf(r),
    campaignSettings: settingsOf(r),
    declinedReason: r.declined_reason,
    haltReasonId: (r.halt_reason_id ?? null) as CampaignHaltReasonValue | null,
    spamKeywords: r.spam_keywords,
    stats: statsOf(r),
  };
}

/** Loads the children of the given campaigns in three queries and builds their DTOs (in the rows' order). */
export async function campaignDtos(m: Pick<EntityManager, 'query'>, rows: CampaignRow[]): Promise<CampaignDto[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const variants = await m.query<VariantRow[]>(
    `SELECT id::text, campaign_id::text, name, text, color, ratio, position, sent::text, delivered::text, sent_failed::text, undelivered::text, dlr_failed::text,
            opted_out::text, clicked::text, cost_micros::text
       FROM campaigns.campaign_variant WHERE campaign_id = ANY($1::bigint[]) ORDER BY position, id`,
    [ids],
  );
  const senders = await m.query<SenderLinkRow[]>(
    `SELECT cs.id::text, cs.campaign_id::text, cs.sender_id::text, s.value AS sender_value, cs.ratio, cs.position, cs.sent::text, cs.delivered::text,
            cs.sent_failed::text, cs.undelivered::text, cs.cost_micros::text
       FROM campaigns.campaign_sender cs LEFT JOIN campaigns.sender s ON s.sender_id = cs.sender_id AND s.account_id = cs.account_id AND NOT s.deleted
      WHERE cs.campaign_id = ANY($1::bigint[]) ORDER BY cs.position, cs.id`,
    [ids],
  );
  const tags = await m.query<TagLinkRow[]>(
    `SELECT ct.campaign_id::text, t.id::text, t.value FROM campaigns.campaign_tags ct JOIN campaigns.tag t ON t.id = ct.tag_id
      WHERE ct.campaign_id = ANY($1::bigint[]) ORDER BY t.value, t.id`,
    [ids],
  );
  const by = <T extends { campaign_id: string }>(list: T[]) => {
    const map = new Map<string, T[]>();
    for (const x of list) map.set(x.campaign_id, [...(map.get(x.campaign_id) ?? []), x]);
    return map;
  };
  const v = by(variants);
  const s = by(senders);
  const t = by(tags);
  return rows.map((r) => toCampaignDto(r, v.get(r.id) ?? [], s.get(r.id) ?? [], t.get(r.id) ?? []));
}
