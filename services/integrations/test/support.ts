import { Client } from 'pg';
import { ALL_PERMISSIONS, type EventDefinition, type EventEnvelope } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { IntegrationsModule, IntegrationsOutboxRelay, ManualClock, SyncWorker, type IntegrationsModuleOptions } from '../src';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test answers are read field by field

export interface IntegrationsTestApp {
  t: TestApp;
  clock: ManualClock;
  call: <T = Json>(method: string, path: string, opts?: { body?: unknown; token?: string; headers?: Record<string, string> }) => Promise<{ status: number; body: T; text: string; headers: Headers }>;
  /** A member of account `acc` holding `perms` (every permission by default). */
  member: (acc: string, perms?: readonly string[]) => string;
  sql: <R = Json>(text: string, values?: unknown[]) => Promise<R[]>;
  /** Every event published on the bus so far. */
  events: () => EventEnvelope[];
  /** Events of one type published so far, their data. */
  data: <T>(def: EventDefinition<T>) => T[];
  /** An event from another service, handled before this resolves. */
  publish: <T>(def: EventDefinition<T>, data: T, source?: string) => Promise<void>;
  /** The outbox relayed and the bus drained. */
  settle: () => Promise<void>;
  worker: SyncWorker;
  close: () => Promise<void>;
}

export async function startIntegrations(options: Partial<IntegrationsModuleOptions> = {}): Promise<IntegrationsTestApp> {
  const clock = new ManualClock(Date.parse('2026-03-02T10:00:00Z'));
  const t = await createTestApp(() => ({
    imports: [IntegrationsModule.register({ secret: 'test-secret-of-the-integrations-module', appUrl: 'http://console.test', clock, allowPrivateUrls: true, pollMs: 0, ...options })],
  }));
  const published: EventEnvelope[] = [];
  const bus = t.bus as InMemoryEventBus;
  const original = bus.publish.bind(bus);
  bus.publish = async (events) => {
    published.push(...(events as EventEnvelope[]));
    return original(events);
  };
  const pg = new Client({ connectionString: t.db.url });
  await pg.connect();
  const call: IntegrationsTestApp['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { accept: 'application/json', ...(opts.headers ?? {}) };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(`${t.url}/api${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), redirect: 'manual' });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    return { status: res.status, body: body as never, text, headers: res.headers };
  };
  return {
    t,
    clock,
    call,
    member: (acc, perms = ALL_PERMISSIONS) => t.token({ sub: `${acc}00`, acc, perms: [...perms] }),
    sql: async <R = Json>(text: string, values: unknown[] = []) => (await pg.query(text, values)).rows as R[],
    events: () => published,
    data: <T>(def: EventDefinition<T>) => published.filter((e) => e.type === def.type).map((e) => e.data as T),
    publish: async (def, data, source = 'contacts') => {
      await bus.publish([createEnvelope(def, data, { accountId: (data as { accountId?: string }).accountId ?? null, source })]);
      await bus.drain();
    },
    settle: async () => {
      await t.app.get(IntegrationsOutboxRelay).relay.flush();
      await bus.drain();
    },
    worker: t.app.get(SyncWorker),
    close: async () => {
      await pg.end();
      await t.close();
    },
  };
}
