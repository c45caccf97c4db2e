import { randomUUID } from 'node:crypto';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { logLevel } from 'kafkajs';
import { Pool } from 'pg';
import { flattenStatusBatches, inboundAddress, MessageStatusChangedV1, MessageStatusesChangedV1, InboundRouteChangedV1, MessageAcceptedV1, StreamChannelConfiguredV1, Topics, CustomerUpdatedV1, type EventData, type EventEnvelope } from '@switchboard/contracts';
import { createEnvelope, DevMailbox, generateSigningKeys, InMemoryRealtime, KafkaEventBus, PlatformModule, ProviderSecrets, TokenVerifier, type OutgoingEvent } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { Dispatcher, DispatchModule, type DispatchModuleOptions } from '../src';
import { DispatchOutboxRelay } from '../src/services/events.service';

export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  text: string;
}

export interface DispatchTestApp {
  t: TestApp;
  dispatcher: Dispatcher;
  call: <T = Record<string, unknown>>(method: string, path: string, opts?: { body?: unknown; token?: string; headers?: Record<string, string>; raw?: string }) => Promise<Answer<T>>;
  sql: <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;
  /** Dispatch events published so far. */
  events: (type?: string) => EventEnvelope[];
  /**
   * Dispatch's status changes published so far, in order, each as its per-message event: the per-message form as it
   * is, a batch (`dispatch.message.statuses_changed`, the default since 0173) as its items (`flattenStatusBatches`).
   */
  statusChanges: () => EventEnvelope[];
  publish: (events: OutgoingEvent[]) => Promise<void>;
  /** Publishes `streams.message.accepted` and returns the message uuid. */
  accept: (overrides?: Partial<EventData<typeof MessageAcceptedV1>>, eventId?: string) => Promise<string>;
  /**
   * `streams.stream.channel_configured`, and for two-way and WhatsApp streams (unless `claim: false`) the claim of the
   * sender as streams makes it (`streams.inbound_route.changed`).
   */
  configureStream: (d: Partial<EventData<typeof StreamChannelConfiguredV1>> & { streamId: string; channel: EventData<typeof StreamChannelConfiguredV1>['channel']; claim?: boolean }) => Promise<void>;
  /** `streams.inbound_route.changed`: `accountId` null releases. */
  route: (channel: 'sms' | 'whatsapp' | 'telegram', raw: string, accountId: string | null, streamId: string | null) => Promise<void>;
  setAccountTps: (accountId: string, tps: number) => Promise<void>;
  /** Waits until the message has this status (polling the database). */
  untilStatus: (uuid: string, statuses: string[] | string, ms?: number) => Promise<Record<string, unknown>>;
  until: (check: () => boolean | Promise<boolean>, ms?: number) => Promise<void>;
  flushOutbox: () => Promise<void>;
  /** A super admin token and a member token of an account with permissions. */
  adminToken: () => string;
  memberToken: (accountId: string, perms?: string[]) => string;
  close: () => Promise<void>;
}

export const FAST: DispatchModuleOptions['dispatcher'] = {
  idleMs: 20,
  heartbeatMs: 200,
  staleAfterMs: 1000,
  unknownResendAfterMs: 50,
  retryBaseMs: 20,
};

/** The provider secrets key of the test dispatch (streams would have the same one). */
export const TEST_PROVIDER_SECRETS_KEY = 'provider-secrets-of-the-tests';

/** Provider secrets as streams sends them: sealed for the stream. */
export const sealFor = (streamUid: string, values: Record<string, string>): string => new ProviderSecrets(TEST_PROVIDER_SECRETS_KEY).seal(streamUid, values);

/** Polls `check` until it holds; after `ms` fails naming `what`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, what = 'condition', ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`${what}: not reached in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 15));
  }
}

export async function startDispatch(options: DispatchModuleOptions = {}): Promise<DispatchTestApp> {
  const t = await createTestApp(() => ({
    imports: [DispatchModule.register({ realtimeIntervalMs: 20, providerSecretsKey: TEST_PROVIDER_SECRETS_KEY, ...options, dispatcher: { ...FAST, ...options.dispatcher } })],
  }));
  const published: EventEnvelope[] = [];
  await t.bus.subscribe({ group: 'dispatch-test', topics: [Topics.Dispatch], handler: async (e) => void published.push(e) });
  const pool = new Pool({ connectionString: t.db.url, max: 2 });
  const sql: DispatchTestApp['sql'] = async (text, params = []) => (await pool.query(text, params)).rows;
  const until: DispatchTestApp['until'] = (check, ms = 15000) => waitUntil(check, 'condition', ms);
  const publish = (events: OutgoingEvent[]) => t.bus.publish(events);
  const app: DispatchTestApp = {
    t,
    dispatcher: t.app.get(Dispatcher),
    sql,
    until,
    publish,
    events: (type) => published.filter((e) => !type || e.type === type),
    statusChanges: () => flattenStatusBatches(published.filter((e) => e.type === MessageStatusChangedV1.type || e.type === MessageStatusesChangedV1.type)),
    call: async (method, path, opts = {}) => {
      const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
      if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] ??= 'application/json';
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      const res = await fetch(`${t.url}/api${path}`, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // plain text answer
      }
      return { status: res.status, body: body as never, text };
    },
    accept: async (o = {}, eventId) => {
      const uuid = o.messageUuid ?? randomUUID();
      const data: EventData<typeof MessageAcceptedV1> = {
        messageUuid: uuid,
        accountId: '1',
        streamId: '10',
        streamUid: 'stream-10',
        streamType: 2,
        channel: 'sms',
        sender: 'ACME',
        destination: '+4915112345678',
        iso2: 'DE',
        text: 'Hello',
        encoding: 'GSM7',
        segments: 1,
        priceMicros: 50_000,
        currency: 'EUR',
        payload: null,
        campaignId: null,
        notBefore: null,
        acceptedAt: new Date().toISOString(),
        ...o,
      };
      await publish([createEnvelope(MessageAcceptedV1, data, { accountId: data.accountId, source: 'streams', id: eventId })]);
      return uuid;
    },
    configureStream: async ({ claim, ...d }) => {
      const data: EventData<typeof StreamChannelConfiguredV1> = {
        accountId: '1',
        streamUid: `stream-${d.streamId}`,
        streamType: 2,
        sender: 'ACME',
        credentials: {},
        enabled: true,
        occurredAt: new Date().toISOString(),
        ...d,
      };
      await publish([createEnvelope(StreamChannelConfiguredV1, data, { accountId: data.accountId, source: 'streams' })]);
      await until(async () => (await sql(`SELECT 1 FROM dispatch.stream_channel WHERE stream_id = $1 AND sender = $2 AND enabled = $3`, [d.streamId, data.sender, data.enabled])).length > 0);
      if (claim !== false && (data.streamType === 4 || data.streamType === 5)) await app.route(data.channel === 'whatsapp' ? 'whatsapp' : 'sms', data.sender, data.accountId, data.streamId);
    },
    route: async (channel, raw, accountId, streamId) => {
      const address = inboundAddress(channel, raw)!;
      await publish([createEnvelope(InboundRouteChangedV1, { channel, address, accountId, streamId, occurredAt: new Date().toISOString() }, { accountId, source: 'streams' })]);
      await until(async () => {
        const rows = await sql<{ account_id: string }>(`SELECT account_id::text FROM dispatch.inbound_owner WHERE channel = $1 AND address = $2`, [channel, address]);
        return accountId === null ? rows.length === 0 : rows[0]?.account_id === accountId;
      });
    },
    setAccountTps: async (accountId, tps) => {
      await publish([
        createEnvelope(
          CustomerUpdatedV1,
          { accountId, name: `acc ${accountId}`, shortName: null, status: 'active', active: 1, currency: 'EUR', tps, dailyLimit: null, customSettings: {}, genSettings: {}, createdAt: new Date().toISOString() },
          { accountId, source: 'accounts' },
        ),
      ]);
      await until(async () => (await sql(`SELECT 1 FROM dispatch.account_limit WHERE account_id = $1 AND tps = $2`, [accountId, tps])).length > 0);
    },
    untilStatus: async (uuid, statuses, ms) => {
      const want = Array.isArray(statuses) ? statuses : [statuses];
      let row: Record<string, unknown> | undefined;
      await until(async () => {
        [row] = await sql(`SELECT * FROM dispatch.message WHERE uuid = $1`, [uuid]);
        return !!row && want.includes(String(row.status));
      }, ms);
      return row!;
    },
    flushOutbox: async () => {
      await t.app.get(DispatchOutboxRelay).relay.flush();
      await (t.bus as { drain?: () => Promise<void> }).drain?.();
    },
    adminToken: () => t.token({ sub: '900', acc: null, sa: true, roles: ['ROLE_SUPER_ADMIN'] }),
    memberToken: (accountId, perms = []) => t.token({ sub: `7${accountId}`, acc: accountId, perms }),
    close: async () => {
      await pool.end();
      await t.close();
    },
  };
  return app;
}

/** A vendor on the SMPP peer, and a global route for Germany through it. */
export function smppVendor(port: number, extra: Record<string, unknown> = {}): NonNullable<DispatchModuleOptions['seedVendors']>[number] {
  return { name: 'Local SMSC', serviceType: 'sms', adapter: 'smpp', config: { host: '127.0.0.1', port, systemId: 'dispatch', password: 'secret', reconnectMs: 50, throttleBackoffMs: 5, ...extra } };
}

export interface DispatchReplica {
  app: INestApplicationContext;
  bus: KafkaEventBus;
  dispatcher: Dispatcher;
}

/**
 * A dispatch replica as the standalone process runs it: the sender group on a Kafka cluster (the mock cluster of the
 * test file, so no other test's dispatch joins the group), the test database, the SMPP peer as its vendor.
 */
export async function startDispatchReplica(o: { kafkaUrl: string; databaseUrl: string; peerPort: number; dispatcher: DispatchModuleOptions['dispatcher'] }): Promise<DispatchReplica> {
  const bus = new KafkaEventBus({
    clientId: 'dispatch-replica-test',
    brokers: o.kafkaUrl.split(','),
    logLevel: logLevel.NOTHING,
    consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 300, rebalanceTimeoutMs: 5000, maxWaitTimeMs: 100, partitionsConsumedConcurrently: 4 },
  });
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(generateSigningKeys().publicKey), databaseUrl: o.databaseUrl, processName: 'dispatch' }),
      DispatchModule.register({ seedVendors: [smppVendor(o.peerPort)], dispatcher: o.dispatcher }),
    ],
  })
  class ReplicaModule {}
  const app = await NestFactory.createApplicationContext(ReplicaModule, { logger: ['error'] });
  await app.init();
  return { app, bus, dispatcher: app.get(Dispatcher) };
}
