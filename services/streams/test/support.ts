import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import {
  ALL_PERMISSIONS,
  BalanceAdjustedV1,
  CustomerCreatedV1,
  CustomerUpdatedV1,
  PriceChangedV1,
  Topics,
  type CustomerSnapshot,
  type EventDefinition,
  type EventEnvelope,
} from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus, type OutgoingEvent } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { ManualClock, StreamsModule, StreamsOutboxRelay, type StreamsModuleOptions } from '../src';

export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test answers are read field by field

export const WA_TOKEN = 'EAAGood-WhatsApp-token';
export const WA_BUSINESS = '1111111111';
export const WA_PHONE_ID = '2222222222';
export const TG_TOKEN = '123456:ABCdefGhIJKlmnoPQRstuVWXyz0123456789';
/** A second business account with its own token and number, and a second bot. */
export const WA_TOKEN_B = 'EAAGood-token-of-business-B';
export const WA_BUSINESS_B = '5555555555';
export const WA_PHONE_ID_B = '6666666666';
export const TG_TOKEN_B = '654321:ZYXwvuTSRqpoNMLkjiHGfedCBA9876543210';
/** Another token of the first bot (BotFather issues a new one when the old is revoked): getMe names the same bot. */
export const TG_TOKEN_SAME_BOT = '123456:NewTokenOfTheSameBotAfterRevoke01234';

/** Which bot each token is, and which business and numbers each WhatsApp token reaches. */
const BOTS: Record<string, { id: number; username: string }> = {
  [TG_TOKEN]: { id: 123456, username: 'test_bot' },
  [TG_TOKEN_SAME_BOT]: { id: 123456, username: 'test_bot' },
  [TG_TOKEN_B]: { id: 654321, username: 'other_bot' },
};
const WABAS: Record<string, { business: string; name: string; verified: string; phones: Array<{ id: string; display: string }> }> = {
  [WA_TOKEN]: { business: WA_BUSINESS, name: 'Acme WhatsApp', verified: 'Acme', phones: [{ id: WA_PHONE_ID, display: '+1 415-555-2671' }] },
  [WA_TOKEN_B]: { business: WA_BUSINESS_B, name: 'Beta WhatsApp', verified: 'Beta', phones: [{ id: WA_PHONE_ID_B, display: '+1 415-555-2699' }] },
};

/**
 * A local stand-in for the WhatsApp Cloud API (Graph) and the Telegram Bot API, answering as their documentation
 * shows (Graph: `{ error: { message, type, code } }`, code 190 for a bad token, 100 for an unknown object;
 * Telegram: `{ ok, result }` or `{ ok: false, error_code, description }`).
 */
export class FakeProviders {
  readonly requests: Array<{ method: string; url: string; auth: string | undefined; body: string }> = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => this.handle(req, res, body));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? '/', this.url);
    this.requests.push({ method: req.method ?? '', url: url.pathname + url.search, auth: req.headers.authorization, body });
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    const tg = /^\/bot([^/]+)\/getMe$/.exec(url.pathname);
    if (tg) {
      const bot = BOTS[tg[1]];
      if (bot) return send(200, { ok: true, result: { id: bot.id, is_bot: true, first_name: 'Test Bot', username: bot.username } });
      return send(401, { ok: false, error_code: 401, description: 'Unauthorized' });
    }
    const graph = /^\/v21\.0\/(\d+)(?:\/(phone_numbers|message_templates|flows))?$/.exec(url.pathname);
    if (!graph) return send(404, { error: { message: 'Unknown path components', type: 'OAuthException', code: 2500 } });
    const waba = WABAS[String(req.headers.authorization ?? '').replace(/^Bearer /, '')];
    if (!waba) {
      return send(401, { error: { message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException', code: 190, fbtrace_id: 'A1' } });
    }
    // a token sees its own business account only (another one is "does not exist" to it, as Graph answers)
    if (graph[1] !== waba.business) {
      return send(400, {
        error: { message: `Unsupported get request. Object with ID '${graph[1]}' does not exist`, type: 'GraphMethodException', code: 100, error_subcode: 33, fbtrace_id: 'A2' },
      });
    }
    switch (graph[2]) {
      case undefined:
        return send(200, { id: waba.business, name: waba.name });
      case 'phone_numbers':
        return send(200, { data: waba.phones.map((p) => ({ verified_name: waba.verified, display_phone_number: p.display, id: p.id, quality_rating: 'GREEN' })), paging: { cursors: { before: 'a', after: 'b' } } });
      case 'message_templates':
        if (req.method === 'POST') return send(200, { id: '9999', status: 'PENDING', category: JSON.parse(body).category });
        if (req.method === 'DELETE') return send(200, { success: true });
        return send(200, {
          data: [{ name: 'order_update', status: 'APPROVED', category: 'UTILITY', language: 'en_US', components: [{ type: 'BODY', text: 'Order {{1}} shipped' }], id: '555' }],
          paging: { cursors: { before: 'a', after: 'b' } },
        });
      case 'flows':
        return send(200, { data: [{ id: '777', name: 'signup', status: 'PUBLISHED', categories: ['SIGN_UP'], validation_errors: [] }], paging: { cursors: { before: 'a', after: 'b' } } });
    }
  }
}

export interface StreamsTestApp {
  t: TestApp;
  clock: ManualClock;
  providers: FakeProviders;
  call: <T = Json>(method: string, path: string, opts?: { body?: unknown; token?: string; headers?: Record<string, string> }) => Promise<Answer<T>>;
  /** A console access token for a member of `acc` (every permission unless `perms` says otherwise). */
  member: (acc: string, perms?: readonly string[], sub?: string) => string;
  superAdmin: (acc?: string | null) => string;
  /** Accounts events, as the accounts service would publish them, handled before this resolves. */
  publish: <T>(def: EventDefinition<T>, data: T) => Promise<void>;
  /** Many events in one publish (as a relay pass does), handled before this resolves. */
  publishAll: (events: OutgoingEvent[]) => Promise<void>;
  /** `prices` are global (every account), `ownPrices` this account's. */
  account: (acc: string, o?: Partial<CustomerSnapshot> & { balance?: number; prices?: Record<string, number>; ownPrices?: Record<string, number> }) => Promise<void>;
  /** Creates a stream through the console and returns it with its token. */
  stream: (acc: string, body?: Json) => Promise<Json & { token: string }>;
  /** POST /streams/messages with a stream token. */
  send: (token: string, body: unknown, headers?: Record<string, string>) => Promise<Answer>;
  balance: (acc: string) => Promise<number>;
  sql: <R = Json>(text: string, values?: unknown[]) => Promise<R[]>;
  /** Streams events published so far. */
  events: () => Promise<EventEnvelope[]>;
  close: () => Promise<void>;
}

/**
 * The streams module on a database of its own, or with `replicaOf` a second replica on another app's database, clock
 * and keys (each with its own in-memory bus and process state).
 */
export async function startStreams(options: Partial<StreamsModuleOptions> = {}, trustProxy?: string, replicaOf?: StreamsTestApp): Promise<StreamsTestApp> {
  const clock = replicaOf?.clock ?? new ManualClock(Date.parse('2026-03-02T10:00:00Z'));
  const providers = new FakeProviders();
  await providers.start();
  const t = await createTestApp(() => ({
    imports: [
      StreamsModule.register({
        secret: 'test-secret-of-the-streams-module',
        clock,
        cacheTtlMs: 0,
        whatsappApiBaseUrl: providers.url,
        telegramApiBaseUrl: providers.url,
        publicApiUrl: 'https://api.example.test',
        ...options,
      }),
    ],
    trustProxy,
  }), replicaOf ? { db: replicaOf.t.db, keys: replicaOf.t.keys } : undefined);
  const published: EventEnvelope[] = [];
  await t.bus.subscribe({ group: 'streams-test', topics: [Topics.Streams], handler: async (e) => void published.push(e) });
  const pg = new Client({ connectionString: t.db.url });
  await pg.connect();
  const drain = async () => {
    if (t.bus instanceof InMemoryEventBus) await t.bus.drain();
  };
  const call: StreamsTestApp['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(`${t.url}/api${path}`, { method, headers, body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  };
  const member = (acc: string, perms: readonly string[] = ALL_PERMISSIONS, sub = `u${acc}`) => t.token({ sub, acc, perms: [...perms] });
  const publish = async <T>(def: EventDefinition<T>, data: T) => {
    await t.bus.publish([createEnvelope(def, data, { accountId: null, source: 'accounts' })]);
    await drain();
  };
  const publishAll = async (events: OutgoingEvent[]) => {
    await t.bus.publish(events);
    await drain();
  };
  const sql = async <R = Json>(text: string, values: unknown[] = []) => (await pg.query(text, values)).rows as R[];
  const app: StreamsTestApp = {
    t,
    publishAll,
    clock,
    providers,
    call,
    member,
    superAdmin: (acc = null) => t.token({ sub: 'root', acc, perms: [], sa: true }),
    publish,
    account: async (acc, o = {}) => {
      const { balance, prices, ownPrices, ...snap } = o;
      const existing = await sql(`SELECT 1 FROM streams.customer WHERE account_id = $1`, [acc]);
      const snapshot: CustomerSnapshot = {
        accountId: acc,
        name: `Account ${acc}`,
        shortName: null,
        status: 'active',
        active: 1,
        currency: 'EUR',
        tps: 1000,
        dailyLimit: null,
        customSettings: { allow_whatsapp: true, allow_telegram_bot: true, allow_telegram_private: true },
        genSettings: {},
        createdAt: '2026-01-01T00:00:00.000Z',
        ...snap,
      };
      await publish(existing.length ? CustomerUpdatedV1 : CustomerCreatedV1, snapshot);
      if (balance) await publish(BalanceAdjustedV1, { accountId: acc, adjustmentId: randomUUID(), amountMicros: balance, currency: snapshot.currency, reason: 'top-up' });
      for (const [iso2, price] of Object.entries(prices ?? {})) await publish(PriceChangedV1, { accountId: null, iso2, pricePerSegmentMicros: price, currency: snapshot.currency });
      for (const [iso2, price] of Object.entries(ownPrices ?? {})) await publish(PriceChangedV1, { accountId: acc, iso2, pricePerSegmentMicros: price, currency: snapshot.currency });
    },
    stream: async (acc, body = {}) => {
      const token = member(acc);
      const created = await call('POST', '/streams', { token, body: { name: 'API stream', streamType: 2, sender: 'Acme', ...body } });
      if (created.status !== 201) throw new Error(`stream create answered ${created.status}: ${JSON.stringify(created.body)}`);
      const shown = await call('GET', `/streams/token/${created.body.id}`, { token });
      return { ...created.body, token: shown.body.token };
    },
    send: (token, body, headers = {}) => call('POST', '/streams/messages', { body, headers: { authorization: token, ...headers } }),
    balance: async (acc) => Number((await sql<{ b: string }>(`SELECT coalesce(sum(balance_micros), 0)::text AS b FROM streams.balance_slot WHERE account_id = $1`, [acc]))[0].b),
    sql,
    events: async () => {
      const relay = t.app.get(StreamsOutboxRelay).relay;
      for (let i = 0; i < 50; i++) {
        await relay.flush();
        const [{ n }] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM streams.outbox WHERE published_at IS NULL`);
        if (n === 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      await drain();
      return published;
    },
    close: async () => {
      await pg.end();
      await t.close();
      await providers.stop();
    },
  };
  return app;
}

/** A valid US number for tests (+1 415 555 26xx). */
export const phone = (n = 0): string => `+1415555${String(2671 + n).padStart(4, '0')}`;
