import { randomUUID } from 'node:crypto';
import {
  ALL_PERMISSIONS,
  CampaignSendBatchRequestedV1,
  CampaignChangedV1,
  CustomerCreatedV1,
  LinkClicksRecordedV1,
  MessageAcceptedV1,
  MessageRefundedV1,
  MessageStatusChangedV1,
  StreamCreatedV1,
} from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus, type OutgoingEvent } from '@switchboard/platform';
import { createTestApp, serviceHarness, type ServiceHarness } from '@switchboard/platform/testing';
import { StatsModule, type StatsModuleOptions } from '../src';

export type { Answer } from '@switchboard/platform/testing';

export interface Msg {
  uuid: string;
  account: string;
  stream: string;
  sender: string;
  iso2: string | null;
  acceptedAt: string;
  segments: number;
  priceMicros: number;
  currency: string;
  /** the campaign the message was sent for (set by streams on the acceptance), and its variant */
  campaign?: string | null;
  variant?: string | null;
}

export interface StatsTestApp extends ServiceHarness {
  token: (account: string, perms?: readonly string[], superAdmin?: boolean) => string;
}

export async function startStats(options: StatsModuleOptions = {}): Promise<StatsTestApp> {
  const bus = new InMemoryEventBus();
  const t = await createTestApp(() => ({ imports: [StatsModule.register(options)], bus }));
  return { ...(await serviceHarness(t, bus)), token: (account, perms = ALL_PERMISSIONS, superAdmin = false) => t.token({ sub: `user-${account}`, acc: account, perms: [...perms], sa: superAdmin }) };
}

export const customer = (accountId: string, timeZone: string, currency = 'EUR') =>
  createEnvelope(
    CustomerCreatedV1,
    { accountId, name: `Account ${accountId}`, shortName: null, status: 'active', active: 1, currency, tps: 10, dailyLimit: null, customSettings: { timezone: timeZone }, genSettings: {}, createdAt: new Date().toISOString() },
    { accountId, source: 'accounts' },
  );

export const stream = (accountId: string, streamId: string, name: string) =>
  createEnvelope(
    StreamCreatedV1,
    { streamId, accountId, streamUid: randomUUID(), name, streamType: 2, status: 0, staticServiceType: null, sender: null, enableSending: true, isDefault: false, tps: 0, updatedAt: new Date().toISOString() },
    { accountId, source: 'streams' },
  );

export function message(m: Partial<Msg> & { account: string; acceptedAt: string }): Msg {
  return { uuid: randomUUID(), stream: '1', sender: 'Acme', iso2: 'GB', segments: 1, priceMicros: 50_000, currency: 'EUR', ...m };
}

/**
 * A message's `streams.message.accepted`: a campaign message's carries its variant, as streams from docs/decisions/0205
 * on passes it through from the request (`oldFormat`: as older streams wrote it, without).
 */
export const accepted = (m: Msg, id?: string, oldFormat = false) =>
  createEnvelope(
    MessageAcceptedV1,
    {
      ...(m.campaign && m.variant !== undefined && !oldFormat ? { variantId: m.variant } : {}),
      messageUuid: m.uuid,
      accountId: m.account,
      streamId: m.stream,
      streamUid: randomUUID(),
      streamType: 2,
      channel: 'sms',
      sender: m.sender,
      destination: '+447700900000',
      iso2: m.iso2,
      text: 'hello',
      encoding: 'GSM7',
      segments: m.segments,
      priceMicros: m.priceMicros,
      currency: m.currency,
      payload: null,
      campaignId: m.campaign ?? null,
      notBefore: null,
      acceptedAt: m.acceptedAt,
    },
    { accountId: m.account, source: 'streams', id },
  );

export const statusChanged = (m: Msg, status: 'sent' | 'delivered' | 'sent_failed' | 'undelivered' | 'no_routes' | 'rejected' | 'accepted', id?: string) =>
  createEnvelope(
    MessageStatusChangedV1,
    {
      messageUuid: m.uuid,
      accountId: m.account,
      streamId: m.stream,
      streamUid: randomUUID(),
      campaignId: m.campaign ?? null,
      sender: m.sender,
      destination: '+447700900000',
      status,
      outgoingStatus: null,
      error: null,
      vendorId: null,
      providerMessageId: null,
      sentAt: null,
      deliveredAt: null,
      mcc: null,
      mnc: null,
      occurredAt: m.acceptedAt,
    },
    { accountId: m.account, source: 'dispatch', id },
  );

/** A campaign's send batch asked of streams: the messages' campaign and variant. */
export const sendRequested = (account: string, campaignId: string, msgs: Msg[], id?: string) =>
  createEnvelope(
    CampaignSendBatchRequestedV1,
    {
      batchId: randomUUID(),
      accountId: account,
      streamId: '1',
      campaignId,
      items: msgs.map((m, i) => ({ messageUuid: m.uuid, destination: '+447700900000', text: 'hi', sender: null, payload: null, notBefore: null, ref: String(i), variantId: m.variant ?? null })),
    },
    { accountId: account, source: 'campaigns', id },
  );

export const refunded = (m: Msg, amountMicros: number, id?: string) =>
  createEnvelope(MessageRefundedV1, { messageUuid: m.uuid, accountId: m.account, amountMicros, currency: m.currency, balanceAfterMicros: 0, reason: 'no_routes' }, { accountId: m.account, source: 'streams', id });

/** A small seeded generator (mulberry32), so a failing order can be replayed from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A click as links records it: on a campaign's link (or none), its domain, whether it is the recipient's first. */
/**
 * Eight random custom ranges between 2026-03-01 and 2027-01-06 (spans of a few hours to about 300 days): date-only
 * ends (local midnights, often the first of a month), date-times to the second, or a mix; ranges whose start date
 * falls after their end date are left out.
 */
export function randomRanges(r: () => number): Array<{ start: string; end: string }> {
  const lo = Date.parse('2026-03-01T00:00:00Z');
  const hi = Date.parse('2027-01-06T00:00:00Z');
  const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const ranges: Array<{ start: string; end: string }> = [];
  for (let i = 0; i < 8; i++) {
    const start = lo + Math.floor(r() * (hi - lo));
    const span = Math.floor(Math.exp(r() * Math.log(300 * 24)) * 3_600_000);
    const end = Math.min(hi, start + span);
    const form = r();
    const startText = form < 0.35 ? date(start) : form < 0.5 ? `${date(start).slice(0, 8)}01` : new Date(Math.floor(start / 1000) * 1000).toISOString();
    const endText = form < 0.5 || r() < 0.3 ? date(end) : new Date(Math.floor(end / 1000) * 1000).toISOString();
    if (startText.slice(0, 10) <= endText.slice(0, 10)) ranges.push({ start: startText, end: endText });
  }
  return ranges;
}

export interface Click {
  campaign: string | null;
  variant: string | null;
  domain: string;
  first: boolean;
  at: string;
  m?: Msg | null;
}

export const clicksRecorded = (account: string, list: Click[]) =>
  createEnvelope(
    LinkClicksRecordedV1,
    {
      accountId: account,
      clicks: list.map((c) => ({
        clickId: randomUUID(),
        linkId: randomUUID(),
        shortUrl: 'https://go.example.com/abc',
        originalUrl: 'https://shop.example.com',
        domainId: c.domain,
        offerId: null,
        campaignId: c.campaign,
        variantId: c.variant,
        streamId: '1',
        contactId: null,
        messageUuid: c.m?.uuid ?? null,
        destination: null,
        first: c.first,
        uaClass: 'mobile' as const,
        ip: null,
        userAgent: null,
        clickedAt: c.at,
      })),
    },
    { accountId: account, source: 'links' },
  );

/** Accounts in a DST zone, a +05:30 and a -03:00 zone (the rollup-grain tests: 0060, 0070). */
export const ZONES: Record<string, string> = { '611': 'Europe/Berlin', '612': 'Asia/Kolkata', '613': 'America/Sao_Paulo' };
/**
 * Periods with messages: around both DST changes of 2026 (Europe: 29 March and 25 October), across month ends (April
 * to May, August to September, the year's end) and a few days in June.
 */
export const ZONE_PERIODS: Array<[string, number]> = [
  ['2026-03-26T00:00:00Z', 6],
  ['2026-04-29T12:00:00Z', 3],
  ['2026-06-10T00:00:00Z', 2],
  ['2026-08-30T00:00:00Z', 3],
  ['2026-10-22T00:00:00Z', 6],
  ['2026-12-30T00:00:00Z', 4],
];

/**
 * The shared data of the rollup-grain tests: for each account of ZONES, 3 campaigns, 70 messages a period of
 * ZONE_PERIODS at random instants (2 streams, 3 countries, 2 variants, random prices), each accepted, `sent`, then a
 * final status (the state moves between rollup rows), and clicks within five hours of half of them.
 */
export async function seedZones(s: StatsTestApp, seed: number): Promise<void> {
  const statuses = ['delivered', 'delivered', 'delivered', 'undelivered', 'sent', 'no_routes'] as const;
  await s.publish(Object.entries(ZONES).map(([a, z]) => customer(a, z, 'EUR')));
  await s.publish(
    Object.keys(ZONES).flatMap((a) =>
      [1, 2, 3].map((c) =>
        createEnvelope(CampaignChangedV1, { campaignId: `${a}${c}`, accountId: a, name: `Campaign ${c}`, type: 1, status: 6, streamId: '1', deleted: false, updatedAt: new Date().toISOString() }, { accountId: a, source: 'campaigns' }),
      ),
    ),
  );
  const r = rng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)];
  for (const account of Object.keys(ZONES)) {
    const msgs: Msg[] = [];
    const clicks: Click[] = [];
    for (const [from, days] of ZONE_PERIODS) {
      for (let i = 0; i < 70; i++) {
        const at = new Date(Date.parse(from) + Math.floor(r() * days * 86_400_000)).toISOString();
        const campaign = `${account}${pick([1, 2, 3])}`;
        const variant = pick(['1', '2']);
        msgs.push(message({ account, campaign, variant, acceptedAt: at, stream: pick(['1', '2']), iso2: pick(['GB', 'DE', 'IN']), priceMicros: 10_000 + Math.floor(r() * 90_000) }));
        if (r() < 0.5) clicks.push({ campaign, variant, domain: pick(['1', '2']), first: r() < 0.6, at: new Date(Date.parse(at) + Math.floor(r() * 5 * 3_600_000)).toISOString() });
      }
    }
    // requests, acceptances and a first status in one go; the final status later (the state moves between rows)
    const byCampaign = new Map<string, Msg[]>();
    for (const m of msgs) byCampaign.set(m.campaign as string, [...(byCampaign.get(m.campaign as string) ?? []), m]);
    const first: Array<OutgoingEvent<unknown>> = [...byCampaign.entries()].map(([c, list]) => sendRequested(account, c, list));
    for (const m of msgs) first.push(accepted(m), statusChanged(m, 'sent'));
    await s.publish(first);
    await s.publish(msgs.map((m) => statusChanged(m, pick(statuses))));
    await s.publish([clicksRecorded(account, clicks)]);
  }
}
