import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { EventEnvelope } from '@switchboard/contracts';
import { InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, type TestApp, type TestAppOptions } from '@switchboard/platform/testing';
import { Client } from 'pg';
import { LinksModule, MintConsumer, RedirectRoleService, type LinksModuleOptions } from '../src';
import { CodeCipher, decodeCode } from '../src/mint/codes';
import type { LinkBatchRequest } from '../src/mint/mint';

export const CODE_SECRET = 'redirect-test-code-secret';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface LinksTestApp {
  t: TestApp;
  bus: InMemoryEventBus;
  sql: <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;
  mint: (req: LinkBatchRequest) => ReturnType<MintConsumer['mint']>;
  redirect: RedirectRoleService;
  /** A request to the redirect server with this Host header. */
  hit: (host: string, path: string, o?: { method?: string; headers?: Record<string, string>; body?: string }) => Promise<Reply>;
  /** Domain rows as the admin role leaves them once DNS verified them (claimed, configured). */
  domain: (accountId: string, name: string, o?: { state?: number; limit?: number | null; usages?: number; claimed?: boolean; blocked?: boolean }) => Promise<string>;
  pool: (accountId: string, name: string, distribution: 1 | 10, domainIds: string[]) => Promise<string>;
  offer: (accountId: string, url: string, o?: { disabled?: boolean; expireInDays?: number | null; method?: string; createdAt?: Date }) => Promise<string>;
  events: (type: string) => EventEnvelope[];
  /**
   * The stored link of a short URL as `links.link_of` resolves it (the columns of `links.link`, `vars` as jsonb; its
   * range row since docs/decisions/0092): undefined when the URL's host has no domain or its code resolves to nothing there.
   */
  linkOf: (shortUrl: string) => Promise<StoredLink | undefined>;
  close: () => Promise<void>;
}

export interface StoredLink {
  domain_id: string;
  code: string;
  account_id: string;
  target_id: string;
  campaign_id: string | null;
  variant_id: string | null;
  stream_id: string | null;
  contact_id: string | null;
  message_uuid: string | null;
  destination: string | null;
  vars: Record<string, string> | null;
  expires_at: Date | null;
  created_at: Date;
}

const cipher = new CodeCipher(CODE_SECRET);

export async function startLinks(options: LinksModuleOptions = {}, extraImports: TestAppOptions['imports'] = [], app: Pick<TestAppOptions, 'realtime'> = {}): Promise<LinksTestApp> {
  const bus = new InMemoryEventBus();
  const seen: EventEnvelope[] = [];
  const t = await createTestApp(() => ({
    imports: [LinksModule.register({ codeSecret: CODE_SECRET, dnsPollMs: 0, ...options, redirect: { publicScheme: 'http', ...options.redirect } }), ...extraImports],
    bus,
    ...app,
  }));
  await bus.subscribe({ group: 'test.spy', topics: ['switchboard.links'], handler: async (e) => void seen.push(e) });
  const pg = new Client({ connectionString: t.db.url });
  await pg.connect();
  const sql = async <T,>(text: string, params: unknown[] = []) => (await pg.query(text, params)).rows as T[];
  const redirect = t.app.get(RedirectRoleService);
  const port = () => redirect.running!.port;
  return {
    t,
    bus,
    sql,
    mint: (req) => t.app.get(MintConsumer).mint(req),
    redirect,
    linkOf: async (shortUrl) => {
      const u = new URL(shortUrl);
      const code = decodeCode(u.pathname.slice(1));
      const [row] = await sql<StoredLink>(
        `SELECT l.domain_id::text, l.code::text, l.account_id::text, l.target_id::text, l.campaign_id::text, l.variant_id::text, l.stream_id::text, l.contact_id::text,
                l.message_uuid::text, l.destination, l.vars::jsonb AS vars, l.expires_at, l.created_at
           FROM links.domain d CROSS JOIN LATERAL links.link_of(d.id, $2, $3) l WHERE d.name = $1`,
        [u.host, code, cipher.decrypt(code)],
      );
      return row;
    },
    hit: (host, path, o = {}) =>
      new Promise<Reply>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: port(), path, method: o.method ?? 'GET', headers: { host, 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148', ...o.headers } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        });
        req.on('error', reject);
        req.end(o.body);
      }),
    domain: async (accountId, name, o = {}) => {
      const [r] = await sql<{ id: string }>(
        `INSERT INTO links.domain (account_id, name, state, verification_token, claimed, blocked, messages_limit, total_usages, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now(), now()) RETURNING id::text`,
        [accountId, name, o.state ?? 1, randomUUID(), o.claimed ?? true, o.blocked ?? false, o.limit ?? null, o.usages ?? 0],
      );
      return r.id;
    },
    pool: async (accountId, name, distribution, domainIds) => {
      const [p] = await sql<{ id: string }>(`INSERT INTO links.domain_pool (account_id, name, distribution, created_at, updated_at) VALUES ($1, $2, $3, now(), now()) RETURNING id::text`, [accountId, name, distribution]);
      await sql(`INSERT INTO links.domain_pool_member (pool_id, domain_id, account_id, position, added_at) SELECT $1, d, $2, i, now() FROM unnest($3::bigint[]) WITH ORDINALITY AS t(d, i)`, [p.id, accountId, domainIds]);
      return p.id;
    },
    offer: async (accountId, url, o = {}) => {
      const [r] = await sql<{ id: string }>(
        `INSERT INTO links.offer (account_id, name, original_url, expire_in_days, expire_method, disabled, created_at, updated_at) VALUES ($1, 'offer', $2, $3, $4, $5, $6, $6) RETURNING id::text`,
        [accountId, url, o.expireInDays ?? null, o.method ?? 'never', o.disabled ?? false, o.createdAt ?? new Date()],
      );
      return r.id;
    },
    events: (type) => seen.filter((e) => e.type === type),
    close: async () => {
      await pg.end();
      await t.close();
    },
  };
}

let batchNo = 0;
/** A campaign batch request of `n` recipients for the given link variables. */
export function batch(accountId: string, variables: LinkBatchRequest['variables'], n: number, vars: (i: number) => Record<string, string> = () => ({}), campaignId = '7'): LinkBatchRequest {
  return {
    batchId: `b-${++batchNo}-${randomUUID().slice(0, 8)}`,
    accountId,
    campaignId,
    streamId: null,
    variables,
    items: Array.from({ length: n }, (_, i) => ({ ref: `r${i}`, messageUuid: randomUUID(), contactId: String(1000 + i), destination: `+4915112345${String(i).padStart(3, '0')}`, vars: vars(i), variantId: i % 2 ? '2' : '1' })),
  };
}

export const shortUrl = (v: Partial<LinkBatchRequest['variables'][number]> & { variable?: string }): LinkBatchRequest['variables'][number] => ({
  variable: 'shorturl',
  kind: 'shorturl',
  offerId: null,
  url: null,
  domainIds: [],
  domainPoolId: null,
  expireInDays: null,
  ...v,
});

/** `http://host/code` as host and path. */
export function split(url: string): { host: string; path: string } {
  const u = new URL(url);
  return { host: u.host, path: u.pathname };
}

/** Polls until `ok` holds (events leave through the outbox relay, after the commit). */
export async function waitFor(ok: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error('waitFor: condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
