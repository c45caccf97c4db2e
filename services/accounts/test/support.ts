import { ALL_PERMISSIONS, Topics, type EventData, type EventDefinition, type EventEnvelope, type MessageAcceptedV1, type RealtimeMessage } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus, type OutgoingEvent } from '@switchboard/platform';
import { acceptedMessage as platformAcceptedMessage, createTestApp, type TestApp } from '@switchboard/platform/testing';
import { Client } from 'pg';
import { AccountsBootstrapService, AccountsModule, type AccountsModuleOptions, type NewCustomerInput } from '../src';
import { AccountsOutboxRelay } from '../src/services/accounts-events.service';

export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

export interface AccountsTestApp {
  t: TestApp;
  seed: AccountsBootstrapService;
  call: <T = Record<string, unknown>>(method: string, path: string, opts?: { body?: unknown; token?: string }) => Promise<Answer<T>>;
  /** A customer created through the seeding API, its id. */
  customer: (input?: Partial<NewCustomerInput>) => Promise<string>;
  /** A member of `accountId` holding `perms` (default: every permission, as an owner). */
  member: (accountId: string, perms?: readonly string[], userId?: string) => string;
  superAdmin: (accountId?: string | null) => string;
  /** Accounts events published so far (after the relay and the bus delivered them). */
  events: () => Promise<EventEnvelope[]>;
  /** Realtime messages received on `rt.>`. */
  live: RealtimeMessage[];
  /** Publishes another service's event and waits until every consumer handled it. */
  deliver: <T>(def: EventDefinition<T>, data: T, opts?: { id?: string; accountId?: string }) => Promise<string>;
  /** Publishes the events in one call (as a relay pass does) and waits until they are handled. */
  publishAll: (events: OutgoingEvent[]) => Promise<void>;
  sql: <R = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<R[]>;
  close: () => Promise<void>;
}

let users = 1000;

export async function startAccounts(options: AccountsModuleOptions = {}): Promise<AccountsTestApp> {
  const t = await createTestApp(() => ({ imports: [AccountsModule.register(options)] }));
  const published: EventEnvelope[] = [];
  await t.bus.subscribe({ group: 'accounts-test', topics: [Topics.Accounts], handler: async (e) => void published.push(e) });
  const live: RealtimeMessage[] = [];
  await t.realtime.subscribe('rt.>', (m) => void live.push(m));
  const db = new Client({ connectionString: t.db.url });
  await db.connect();
  const seed = t.app.get(AccountsBootstrapService);
  const relay = t.app.get(AccountsOutboxRelay).relay;

  const call: AccountsTestApp['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(`${t.url}/api${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const drain = async () => {
    if (t.bus instanceof InMemoryEventBus) await t.bus.drain();
  };

  return {
    t,
    seed,
    call,
    customer: async (input = {}) => (await seed.createCustomer({ name: `Customer ${++users}`, ...input })).id,
    member: (accountId, perms = ALL_PERMISSIONS, userId = String(++users)) => t.token({ sub: userId, acc: accountId, perms: [...perms] }),
    superAdmin: (accountId = null) => t.token({ sub: String(++users), acc: accountId, sa: true, roles: ['ROLE_SUPER_ADMIN'] }),
    events: async () => {
      for (let i = 0; i < 100; i++) {
        await relay.flush();
        const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts.outbox WHERE published_at IS NULL');
        if (rows[0].n === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await drain();
      return published;
    },
    live,
    deliver: async (def, data, opts = {}) => {
      const env = createEnvelope(def, data, { accountId: opts.accountId ?? null, source: 'test', id: opts.id });
      await t.bus.publish([env]);
      await drain();
      return env.id;
    },
    publishAll: async (events) => {
      await t.bus.publish(events);
      await drain();
    },
    sql: async (text, params) => (await db.query(text, params)).rows,
    close: async () => {
      await db.end();
      await t.close();
    },
  };
}

/** The distinct property paths of an error answer's violations. */
export const violationPaths = (body: unknown): string[] => [
  ...new Set(((body as { violations?: Array<{ propertyPath: string }> }).violations ?? []).map((v) => v.propertyPath)),
].sort();

/** Streams' accepted-message data for the accounts tests (the platform's test message, 2 parts); `over` sets the fields a test is about. */
export const acceptedMessage = (over: Partial<EventData<typeof MessageAcceptedV1>> & Pick<EventData<typeof MessageAcceptedV1>, 'messageUuid' | 'accountId'>): EventData<typeof MessageAcceptedV1> => ({
  ...platformAcceptedMessage(0, { accountId: over.accountId, streamId: '1', sender: 'ACME', text: 'hello' }).data,
  segments: 2,
  ...over,
});
