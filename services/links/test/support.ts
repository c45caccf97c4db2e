import { Client } from 'pg';
import { ALL_PERMISSIONS, Topics, type EventEnvelope } from '@switchboard/contracts';
import { InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { LinksModule, LinksOutboxRelay, ManualClock, type LinksModuleOptions } from '../src';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test answers are read field by field

export interface LinksTestApp {
  t: TestApp;
  clock: ManualClock;
  /** Events the links service published (links.outbox relayed to the bus). */
  published: EventEnvelope[];
  /** A token of a user of `account` with the permissions (default: all). */
  token: (account: string, perms?: readonly string[], extra?: { sa?: boolean }) => string;
  call: (method: string, path: string, opts?: { token?: string; body?: unknown }) => Promise<{ status: number; body: Json }>;
  /** Relays the outbox and waits for the bus to hand the events over. */
  flush: () => Promise<void>;
  sql: <R = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<R[]>;
  close: () => Promise<void>;
}

let users = 5000;

export async function startLinks(options: LinksModuleOptions = {}): Promise<LinksTestApp> {
  const clock = (options.clock as ManualClock | undefined) ?? new ManualClock(new Date('2026-03-01T10:00:00Z'));
  const t = await createTestApp(() => ({ imports: [LinksModule.register({ dnsPollMs: 0, ...options, clock })] }));
  const published: EventEnvelope[] = [];
  await t.bus.subscribe({ group: 'links-test', topics: [Topics.Links], handler: async (e) => void published.push(e) });
  const db = new Client({ connectionString: t.db.url });
  await db.connect();
  const relay = t.app.get(LinksOutboxRelay).relay;
  return {
    t,
    clock,
    published,
    token: (account, perms = ALL_PERMISSIONS, extra = {}) => t.token({ sub: String(users++), acc: account, perms: [...perms], ...extra }),
    call: async (method, path, opts = {}) => {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      const res = await fetch(`${t.url}/api${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
    },
    flush: async () => {
      await relay.flush();
      if (t.bus instanceof InMemoryEventBus) await t.bus.drain();
    },
    sql: async <R>(text: string, params: unknown[] = []) => (await db.query(text, params)).rows as R[],
    close: async () => {
      await db.end();
      await t.close();
    },
  };
}
