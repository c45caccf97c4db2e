import { randomUUID } from 'node:crypto';
import { ALL_PERMISSIONS, InboxSendRequestedV1, MemberChangedV1, MessageReceivedV1, MessageStatusChangedV1, SendBatch, SendBatchProcessedV1, StreamCreatedV1, Topics } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, serviceHarness, type Answer, type ServiceHarness } from '@switchboard/platform/testing';
import { InboxModule, type InboxModuleOptions } from '../src';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test answers are read field by field

export interface InboxTestApp extends ServiceHarness {
  call: <T = Json>(method: string, path: string, opts?: { body?: unknown; token?: string }) => Promise<Answer<T>>;
  sql: <T = Json>(text: string, params?: unknown[]) => Promise<T[]>;
  /** A console token of `user` in `account` with `perms` (default: every permission). */
  token: (account: string, user?: string, perms?: readonly string[]) => string;
}

export async function startInbox(options: InboxModuleOptions = {}): Promise<InboxTestApp> {
  const bus = new InMemoryEventBus();
  const t = await createTestApp(() => ({ imports: [InboxModule.register(options)], bus }));
  return { ...(await serviceHarness(t, bus)), token: (account, user = '1', perms = ALL_PERMISSIONS) => t.token({ sub: user, acc: account, perms: [...perms] }) };
}

export const INBOX_PERMISSIONS = ALL_PERMISSIONS.filter((p) => p.startsWith('INBOX_'));

/** An auth member event: `userId` of `accountId` with an inbox role. */
export function memberEvent(accountId: string, userId: string, o: { firstName?: string; permissions?: string[]; removed?: boolean } = {}) {
  return createEnvelope(
    MemberChangedV1,
    {
      accountId,
      userId,
      email: `u${userId}@example.com`,
      firstName: o.firstName ?? `Agent${userId}`,
      lastName: 'Lee',
      status: 1,
      platformRole: null,
      inboxRole: { id: '50', name: 'Inbox Agent' },
      permissions: o.permissions ?? ['INBOX_VIEW'],
      removed: o.removed ?? false,
    },
    { source: 'auth', accountId },
  );
}

/** A streams stream event. */
export function streamEvent(accountId: string, streamId: string, streamType: number, o: { uid?: string; name?: string; enableSending?: boolean } = {}) {
  return createEnvelope(
    StreamCreatedV1,
    {
      streamId,
      accountId,
      streamUid: o.uid ?? randomUUID(),
      name: o.name ?? `stream ${streamId}`,
      streamType,
      status: 0,
      staticServiceType: null,
      sender: null,
      enableSending: o.enableSending ?? true,
      isDefault: false,
      tps: 0,
      updatedAt: new Date().toISOString(),
    },
    { source: 'streams', accountId },
  );
}

/** A received message as dispatch announces it. */
export function received(o: { accountId: string; streamId: string; streamUid: string; streamType: number; channel: 'sms' | 'whatsapp' | 'telegram' | 'telegram_private'; to: string; from: string; body: string; name?: string | null; at?: Date }) {
  return createEnvelope(
    MessageReceivedV1,
    {
      messageUuid: randomUUID(),
      accountId: o.accountId,
      streamId: o.streamId,
      streamUid: o.streamUid,
      streamType: o.streamType,
      channel: o.channel,
      accountPhone: o.to,
      contactPhone: o.from,
      contactName: o.name ?? null,
      messageType: 'text',
      body: o.body,
      media: null,
      receivedAt: (o.at ?? new Date()).toISOString(),
    },
    { source: 'dispatch', accountId: o.accountId },
  );
}

export type StreamsAnswer = (item: SendBatch['items'][number]) => { outcome: 'accepted' } | { outcome: 'refused'; refusal: string; code: string } | 'silent';

/**
 * Streams as the inbox sees it on the bus: answers each `inbox.send_batch.requested` with
 * `streams.send_batch.processed` as `answer` says, and records what was asked.
 */
export async function fakeStreams(bus: InMemoryEventBus, answer: { fn: StreamsAnswer }): Promise<SendBatch[]> {
  const asked: SendBatch[] = [];
  await bus.subscribe({
    group: 'test.streams',
    topics: [Topics.Inbox],
    types: [InboxSendRequestedV1.type],
    handler: async (e) => {
      const b = SendBatch.parse(e.data);
      asked.push(b);
      const items = b.items.flatMap((it) => {
        const a = answer.fn(it);
        if (a === 'silent') return [];
        return [{ ref: it.ref, messageUuid: it.messageUuid, outcome: a.outcome, refusal: a.outcome === 'refused' ? a.refusal : null, code: a.outcome === 'refused' ? a.code : null, priceMicros: a.outcome === 'accepted' ? 50000 : null, currency: a.outcome === 'accepted' ? 'EUR' : null, segments: a.outcome === 'accepted' ? 1 : null }];
      });
      if (!items.length) return;
      await bus.publish([createEnvelope(SendBatchProcessedV1, { batchId: b.batchId, requester: 'inbox', accountId: b.accountId, streamId: b.streamId, campaignId: null, items }, { source: 'streams', accountId: b.accountId })]);
    },
  });
  return asked;
}

/** dispatch's status change of a message. */
export function statusChanged(accountId: string, messageUuid: string, status: 'sent' | 'delivered' | 'undelivered' | 'sent_failed', outgoingStatus: string | null = null) {
  return createEnvelope(
    MessageStatusChangedV1,
    { messageUuid, accountId, streamId: '1', streamUid: randomUUID(), campaignId: null, sender: 'x', destination: 'y', status, outgoingStatus, error: status === 'sent_failed' ? 'E-VENDOR' : null, vendorId: null, providerMessageId: null, sentAt: null, deliveredAt: null, mcc: null, mnc: null, occurredAt: new Date().toISOString() },
    { source: 'dispatch', accountId },
  );
}

/** streams' answer to a batch, to publish by hand (a late answer). */
export function fakeAnswer(b: SendBatch, outcome: 'accepted') {
  return [
    createEnvelope(
      SendBatchProcessedV1,
      { batchId: b.batchId, requester: 'inbox', accountId: b.accountId, streamId: b.streamId, campaignId: null, items: b.items.map((it) => ({ ref: it.ref, messageUuid: it.messageUuid, outcome, refusal: null, code: null, priceMicros: 1, currency: 'EUR', segments: 1 })) },
      { source: 'streams', accountId: b.accountId },
    ),
  ];
}
