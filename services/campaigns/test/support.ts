import { randomUUID } from 'node:crypto';
import {
  ALL_PERMISSIONS,
  ContactListReadyV1,
  CustomerCreatedV1,
  SenderChangedV1,
  StreamCreatedV1,
  StreamEventChangedV1,
  MaliciousKeywordsChangedV1,
  type EventEnvelope,
} from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus, type OutgoingEvent } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { Client } from 'pg';
import { CampaignsModule, type CampaignsModuleOptions } from '../src';

export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  text: string;
}

export interface CampaignsTestApp {
  t: TestApp;
  bus: InMemoryEventBus;
  token: (account: string, perms?: readonly string[], superAdmin?: boolean) => string;
  call: <T = Record<string, unknown>>(method: string, path: string, opts?: { body?: unknown; token?: string }) => Promise<Answer<T>>;
  sql: <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;
  /** Publishes the events and waits until the consumers handled them. */
  publish: (events: Array<OutgoingEvent<unknown> | EventEnvelope>) => Promise<void>;
  close: () => Promise<void>;
}

export async function startCampaigns(options: CampaignsModuleOptions = {}): Promise<CampaignsTestApp> {
  const bus = new InMemoryEventBus();
  // the runner's loop off: these tests drive the API's status machine (the runner's own tests run it)
  const t = await createTestApp(() => ({ imports: [CampaignsModule.register({ schedulerIntervalMs: 0, ...options, runner: { intervalMs: 0, ...options.runner } })], bus }));
  const pg = new Client({ connectionString: t.db.url });
  await pg.connect();
  return {
    t,
    bus,
    token: (account, perms = ALL_PERMISSIONS, superAdmin = false) => t.token({ sub: `user-${account}`, acc: account, perms: [...perms], sa: superAdmin }),
    call: async (method, p, opts = {}) => {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      const res = await fetch(`${t.url}/api${p}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
      const text = await res.text();
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = null;
      }
      return { status: res.status, body: body as never, text };
    },
    sql: async (text, params = []) => (await pg.query(text, params)).rows,
    publish: async (events) => {
      await bus.publish(events as Array<OutgoingEvent<unknown>>);
      await bus.drain();
    },
    close: async () => {
      await pg.end();
      await t.close();
    },
  };
}

export const customer = (accountId: string, customSettings: Record<string, unknown> = {}, genSettings: Record<string, unknown> = {}) =>
  createEnvelope(
    CustomerCreatedV1,
    { accountId, name: `Account ${accountId}`, shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 10, dailyLimit: null, customSettings, genSettings, createdAt: new Date().toISOString() },
    { accountId, source: 'accounts' },
  );

export const stream = (accountId: string, streamId: string, name = `Stream ${streamId}`, streamType = 1) =>
  createEnvelope(
    StreamCreatedV1,
    { streamId, accountId, streamUid: randomUUID(), name, streamType, status: 0, staticServiceType: null, sender: null, enableSending: true, isDefault: false, tps: 0, updatedAt: new Date().toISOString() },
    { accountId, source: 'streams' },
  );

export const sender = (accountId: string, senderId: string, value = `Acme${senderId}`) =>
  createEnvelope(SenderChangedV1, { senderId, accountId, name: value, value, type: 'outbound-only', country: null, approved: 1, declinedReason: null }, { accountId, source: 'streams' });

export const streamEvent = (accountId: string, streamEventId: string, streamId: string, name = 'order_shipped') =>
  createEnvelope(StreamEventChangedV1, { streamEventId, accountId, streamId, name, text: 'Your order {{1}} shipped', eventKey: name, active: true }, { accountId, source: 'streams' });

export const keywords = (words: string[]) =>
  createEnvelope(MaliciousKeywordsChangedV1, { keywords: words.map((word, i) => ({ id: String(i + 1), word, type: 1 })) }, { accountId: null, source: 'streams' });

export const listReady = (accountId: string, contactListId: string, numOfContacts = 10, type: 'list' | 'segment' = 'list') =>
  createEnvelope(
    ContactListReadyV1,
    { accountId, contactListId, type, name: `List ${contactListId}`, numOfContacts, importListId: null, readyAt: new Date().toISOString() },
    { accountId, source: 'contacts' },
  );
