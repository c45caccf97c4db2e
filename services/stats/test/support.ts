import { randomUUID } from 'node:crypto';
import {
  ALL_PERMISSIONS,
  CampaignSendBatchRequestedV1,
  CustomerCreatedV1,
  MessageAcceptedV1,
  MessageRefundedV1,
  MessageStatusChangedV1,
  StreamCreatedV1,
  
} from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
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

export const accepted = (m: Msg, id?: string) =>
  createEnvelope(
    MessageAcceptedV1,
    {
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
