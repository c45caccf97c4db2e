import * as http from 'node:http';
import { BlockList, isIPv6, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { LinkOptOutConfirmedV1 } from '@switchboard/contracts';
import { counter, createEnvelope, serveMetrics } from '@switchboard/platform';
import type { Pool } from 'pg';
import { CodeCipher, decodeCode } from '../mint/codes';
import { ClickRecorder, type ClickRecorderOptions, type ClickSink } from './click-recorder';
import { createFastHttpServer, HeaderPick, type FastHttpServer, type FastReply, type FastRequest, type RequestHeaders } from './fast-http';
import { LinkStore, type LinkWaiter, type ResolvedLink } from './link-store';
import { PAGES } from './pages';
import { classifyUserAgent, isPreviewPurpose } from './user-agent';

export interface RedirectServerOptions {
  pool: Pool;
  port: number;
  host: string;
  /** The scheme of the short URLs in click events (`https` in production; the server itself speaks HTTP behind TLS termination). */
  publicScheme?: 'http' | 'https';
  /**
   * The proxies (addresses or CIDRs) whose X-Forwarded-For is believed: the client is the right-most address of the
   * header that is not one of them. Empty: the socket's address, the header ignored.
   */
  trustProxy?: readonly string[];
  cacheTtlMs?: number;
  negativeTtlMs?: number;
  cacheMax?: number;
  /**
   * The codes' key (`LINKS_CODE_SECRET`, the minting's): a code is decrypted to the sequence number that finds its
   * range row (docs/decisions/0092). Without it only links minted before ranges resolve.
   */
  codeSecret?: string | null;
  clicks?: Partial<ClickRecorderOptions>;
  /** Where click groups go instead of this process's pool (a cluster worker: to the primary's group commit, 0057). */
  clickSink?: ClickSink;
  /**
   * Redirects parsed by the fast path on node:net (default), node:http taking every other connection
   * (docs/decisions/0091); false: node:http for all.
   */
  fastPath?: boolean;
  now?: () => number;
  onError?: (e: unknown) => void;
}

const HTML = 'text/html; charset=utf-8';
const PAGE_HEADERS = (body: Buffer) => [
  'Content-Type',
  HTML,
  'Content-Length',
  String(body.length),
  'Cache-Control',
  'no-store',
  'X-Content-Type-Options',
  'nosniff',
  'Referrer-Policy',
  'no-referrer',
  'Content-Security-Policy',
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
];
const ROBOTS = Buffer.from('User-agent: *\nDisallow: /\n');

/**
 * Prometheus: answers of the redirector by kind (docs/decisions/0039-observability.md). Label children are taken once;
 * redirects are counted as a plain number and added to the counter when it is read (docs/decisions/0122).
 */
let redirects = 0;
let redirectsFolded = 0;
const answers = counter(
  'switchboard_links_redirect_answers_total',
  'Short-link answers by kind: redirect (302), not_found (404), gone (410), refused (400), page (opt-out pages, robots)',
  ['answer'],
  function () {
    if (redirects === redirectsFolded) return;
    this.labels('redirect').inc(redirects - redirectsFolded);
    redirectsFolded = redirects;
  },
);
const BY_STATUS: Record<number, { inc: () => void }> = { 404: answers.labels('not_found'), 410: answers.labels('gone'), 400: answers.labels('refused') };
const PAGE = answers.labels('page');
const ANSWERS = {
  redirect: () => {
    redirects++;
  },
  page: (status: number) => (BY_STATUS[status] ?? PAGE).inc(),
};

/** The fixed headers of a redirect after its Location. */
const REDIRECT_HEADERS = ['Cache-Control', 'private, no-store', 'Referrer-Policy', 'no-referrer', 'Content-Length', '0'];

/** What the redirect reads of a request: node:http's IncomingMessage, or the fast path's request. */
type Request = Pick<FastRequest, 'url'> & { method?: string };
/** What the redirect writes: node:http's ServerResponse, or the fast path's reply. */
type Reply = FastReply | http.ServerResponse;

const KEEP_ALIVE_MS = 65_000;

/**
 * The redirect server (docs/decisions/0034-links-redirect-and-clicks.md): node:net for the redirects themselves
 * (fast-http.ts, 0091), node:http for every other connection, no framework on the path.
 * `GET /{code}` with the Host header: the link of (host's domain, code) from the in-process cache (or one batched
 * query), a 302 to its target with the recipient's variables filled; 410 for an expired link or a disabled or
 * expired offer, 404 for an unknown code or host, 400 for a target a variable tried to turn elsewhere; never a
 * redirect for those. Opt-out links answer a confirm page; its POST opts the contact out. Clicks go to the
 * ClickRecorder (group commit, the answer does not wait).
 */
export class RedirectServer {
  readonly store: LinkStore;
  readonly clicks: ClickRecorder;
  private readonly server: http.Server;
  /** The fast path, listening in node:http's place (null: node:http listens). */
  private readonly fast: FastHttpServer | null;
  private readonly now: () => number;
  private readonly scheme: string;
  private readonly sockets = new Set<Socket>();
  private readonly trusted: BlockList | null;
  private readonly hosts = new Map<string, string | null>();

  constructor(private readonly options: RedirectServerOptions) {
    this.now = options.now ?? Date.now;
    this.scheme = options.publicScheme ?? 'https';
    this.trusted = options.trustProxy?.length ? trustedProxies(options.trustProxy) : null;
    this.store = new LinkStore(options.pool, {
      cacheTtlMs: options.cacheTtlMs ?? 10_000,
      negativeTtlMs: options.negativeTtlMs ?? 2_000,
      cacheMax: options.cacheMax ?? 500_000,
      now: this.now,
      cipher: options.codeSecret ? new CodeCipher(options.codeSecret) : null,
    });
    this.clicks = new ClickRecorder(options.pool, { flushMs: 10, batchMax: 5000, bufferMax: 20_000, onError: options.onError, ...options.clicks }, this.scheme, options.clickSink);
    this.server = http.createServer({ keepAliveTimeout: KEEP_ALIVE_MS, requestTimeout: 15_000, headersTimeout: 10_000 }, (req, res) => this.handle(req, res));
    this.fast =
      options.fastPath === false
        ? null
        : createFastHttpServer({
            fallback: this.server,
            keepAliveMs: KEEP_ALIVE_MS,
            accepts: (url) => pathOf(url).length === 8,
            handle: (req, reply) => this.route(req, reply, req.remoteAddress),
          });
    this.listener.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  /** The server that listens: the fast path's, or node:http's. */
  private get listener(): NetServer {
    return this.fast?.server ?? this.server;
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.listener.once('error', reject);
      this.listener.listen(this.options.port, this.options.host, () => resolve());
    });
    return (this.listener.address() as AddressInfo).port;
  }

  get port(): number {
    return (this.listener.address() as AddressInfo).port;
  }

  /** Stops listening, closes idle connections, writes the clicks still waiting. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.listener.close(() => resolve()));
    this.fast?.closeIdle();
    this.server.closeIdleConnections();
    setTimeout(() => {
      for (const s of this.sockets) s.destroy();
    }, 2000).unref();
    await closed;
    await this.clicks.close();
  }

  /** node:http's request: every path (metrics, health, robots, the opt-out POST), on connections the fast path handed over. */
  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = pathOf(req.url ?? '/');
    if (path.length !== 8) return this.special(path, req.method ?? 'GET', res, req);
    this.route(req as Request, res, req.socket.remoteAddress, req);
  }

  /** A code's path (`/` and 7 characters), from either parser; `http` is node:http's request (an opt-out POST reads its body). */
  private route(req: Request, res: Reply, peer: string | undefined, http?: http.IncomingMessage): void {
    const method = req.method ?? 'GET';
    const path = pathOf(req.url);
    const code = decodeCode(path.slice(1));
    if (code < 0) return this.page(res, 404, PAGES.notFound, method);
    if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return this.methodNotAllowed(res);
    // the fast path picked its headers while parsing; node:http's are read from its raw list (Node's `req.headers`
    // object is built only when asked for)
    const h = http ? readHeaders(http.rawHeaders) : (req as FastRequest).headers;
    const client: Client = { peer: peer ?? null, forwardedFor: h.forwardedFor, http };
    const host = this.hostOf(h.host);
    if (!host) return this.page(res, 404, PAGES.notFound, method);

    const domain = this.store.cachedDomain(host);
    if (domain === null) return this.page(res, 404, PAGES.notFound, method);
    if (domain !== undefined) {
      const link = this.store.cachedLink(domain.id, code);
      if (link !== undefined) return this.answer(client, res, method, h, path, host, link);
      // a first click: the request itself waits in the look-up's batch (one object, no promise or closures a request)
      this.store.readLink(domain.id, code, new AwaitingLink(this, client, res, method, h, path, host));
      return;
    }
    this.store
      .loadDomain(host)
      .then((d) => (d ? this.store.cachedLink(d.id, code) ?? this.store.loadLink(d.id, code) : null))
      .then(
        (l) => this.answer(client, res, method, h, path, host, l),
        (e: unknown) => this.unavailable(res, e),
      );
  }

  /** Host header to host name, remembered per header value (a few values carry all the traffic). */
  private hostOf(header: string | undefined): string | null {
    if (header === undefined) return null;
    let host = this.hosts.get(header);
    if (host === undefined) {
      host = hostOf(header);
      if (this.hosts.size >= 10_000) this.hosts.clear();
      this.hosts.set(header, host);
    }
    return host;
  }

  /** The answer of a request whose link was looked up or found in memory (`AwaitingLink` calls it once the link is read). */
  answer(client: Client, res: Reply, method: string, h: RequestHeaders, path: string, host: string, link: ResolvedLink | null): void {
    if (!link) return this.page(res, 404, PAGES.notFound, method);
    if (link.kind === 1) return this.optOut(client.http, res, method, path, link);
    if (method === 'POST') return this.methodNotAllowed(res);
    const now = this.now();
    if (link.disabled || link.expiresAtMs <= now) return this.page(res, 410, PAGES.gone, method);
    if (!link.location) return this.page(res, 400, PAGES.refused, method);
    // the click buffer is full while the database commits, or while it is away (0130): the answer waits for room rather
    // than drop a click
    if (!this.clicks.hasRoom()) return this.clicks.whenRoom(() => {
        if (!res.destroyed) this.answer(client, res, method, h, path, host, link);
      });
    const agent = h.userAgent;
    const uaClass = classifyUserAgent(agent);
    this.clicks.record({
      link,
      codeText: path.slice(1),
      host,
      at: now,
      uaClass,
      preview: isPreviewPurpose(method, h.purpose, uaClass),
      ip: this.clientIp(client),
      userAgent: agent ? agent.slice(0, 512) : null,
    });
    ANSWERS.redirect();
    // the head written per answer (0122 built it once per link; measured dearer against its ceiling, 0130)
    res.writeHead(302, ['Location', link.location, ...REDIRECT_HEADERS]);
    res.end();
  }

  /** The opt-out link: a confirm page on GET (previews and prefetches never opt anyone out), the opt-out on POST. */
  private optOut(req: http.IncomingMessage | undefined, res: Reply, method: string, path: string, link: ResolvedLink): void {
    if (method !== 'POST' || !req) return this.page(res, 200, PAGES.optOutConfirm(path), method);
    req.resume();
    const at = new Date(this.now());
    const { topic, ...event } = createEnvelope(
      LinkOptOutConfirmedV1,
      { accountId: link.accountId, contactId: link.contactId, destination: link.destination, campaignId: link.campaignId, messageUuid: link.messageUuid, optedOutAt: at.toISOString() },
      { accountId: link.accountId, source: 'links', occurredAt: at },
    );
    // the opt-out row and its event in one statement (one transaction); a second POST changes nothing
    this.options.pool
      .query(
        `WITH o AS (
           INSERT INTO links.opt_out (domain_id, code, account_id, contact_id, destination, campaign_id, message_uuid, opted_out_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (domain_id, code) DO NOTHING RETURNING 1
         )
         INSERT INTO links.outbox (event_id, topic, key, type, payload) SELECT $9, $10, $11, $12, $13 FROM o`,
        [link.domainId, link.code, link.accountId, link.contactId, link.destination, link.campaignId, link.messageUuid, at, event.id, topic, event.key, event.type, JSON.stringify(event)],
      )
      .then(
        () => {
          this.options.clicks?.onCommitted?.();
          this.page(res, 200, PAGES.optOutDone, method);
        },
        (e: unknown) => this.unavailable(res, e),
      );
  }

  private special(path: string, method: string, res: http.ServerResponse, req?: http.IncomingMessage): void {
    if (path === '/-/metrics' && req) {
      serveMetrics(req, res).catch(() => res.destroy());
      return;
    }
    if (path === '/-/health') {
      res.writeHead(200, ['Content-Type', 'text/plain', 'Cache-Control', 'no-store']);
      res.end('ok');
      return;
    }
    if (path === '/robots.txt') {
      res.writeHead(200, ['Content-Type', 'text/plain', 'Content-Length', String(ROBOTS.length)]);
      res.end(method === 'HEAD' ? undefined : ROBOTS);
      return;
    }
    this.page(res, 404, PAGES.notFound, method);
  }

  private page(res: Reply, status: number, body: Buffer, method: string): void {
    ANSWERS.page(status);
    res.writeHead(status, PAGE_HEADERS(body));
    res.end(method === 'HEAD' ? undefined : body);
  }

  private methodNotAllowed(res: Reply): void {
    res.writeHead(405, ['Allow', 'GET, HEAD', 'Content-Length', '0']);
    res.end();
  }

  /** The database is needed for a link not in memory and it did not answer: 503, never a guess. */
  unavailable(res: Reply, e: unknown): void {
    this.options.onError?.(e);
    if (res.headersSent) return;
    const body = PAGES.unavailable;
    res.writeHead(503, [...PAGE_HEADERS(body), 'Retry-After', '30']);
    res.end(body);
  }

  private clientIp(client: Client): string | null {
    const peer = client.peer;
    if (!this.trusted || !peer || !this.isTrusted(peer)) return peer;
    const hops = (client.forwardedFor ?? '').split(',').map((h) => h.trim()).filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) if (!this.isTrusted(hops[i])) return hops[i].slice(0, 64);
    return peer;
  }

  private isTrusted(address: string): boolean {
    const a = address.startsWith('::ffff:') ? address.slice(7) : address;
    return this.trusted!.check(a, isIPv6(a) ? 'ipv6' : 'ipv4');
  }
}

export type { RequestHeaders } from './fast-http';

/** A request waiting for its link's look-up (`LinkStore.readLink`): answered once the batch it joined is read. */
class AwaitingLink implements LinkWaiter {
  constructor(
    private readonly server: RedirectServer,
    private readonly client: Client,
    private readonly res: Reply,
    private readonly method: string,
    private readonly h: RequestHeaders,
    private readonly path: string,
    private readonly host: string,
  ) {}

  resolve(link: ResolvedLink | null): void {
    this.server.answer(this.client, this.res, this.method, this.h, this.path, this.host, link);
  }

  reject(e: unknown): void {
    this.server.unavailable(this.res, e);
  }
}

/** Who asked: the socket's address, the forwarded chain, and node:http's request when it parsed this one. */
interface Client {
  peer: string | null;
  forwardedFor: string | undefined;
  http: http.IncomingMessage | undefined;
}

/** The request target without its query. */
const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

/** The headers a redirect reads, from node:http's raw list (names and values in turn), as the fast path picks them. */
export function readHeaders(raw: readonly string[]): RequestHeaders {
  const pick = new HeaderPick();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = raw[i];
    const v = raw[i + 1];
    pick.take(k, 0, k.length, v, 0, v.length);
  }
  return pick.headers();
}

/** The request's host name: lower case, without the port or a trailing dot; null when absent or not a host name. */
export function hostOf(header: string | undefined): string | null {
  if (!header) return null;
  let h = header.toLowerCase();
  const colon = h.lastIndexOf(':');
  if (colon > 0 && h.indexOf(']') < colon) h = h.slice(0, colon);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return /^[a-z0-9.-]{1,253}$/.test(h) ? h : null;
}

/** A BlockList of the trusted proxies: addresses and CIDRs (`10.0.0.0/8`, `fd00::/8`); anything else is refused. */
export function trustedProxies(list: readonly string[]): BlockList {
  const b = new BlockList();
  for (const entry of list) {
    const [addr, bits] = entry.split('/');
    const type = isIPv6(addr) ? 'ipv6' : 'ipv4';
    if (bits !== undefined) {
      const n = Number(bits);
      if (!Number.isInteger(n) || n < 0 || n > (type === 'ipv6' ? 128 : 32)) throw new Error(`trusted proxy ${entry}: not an address or CIDR`);
      b.addSubnet(addr, n, type);
    } else {
      b.addAddress(addr, type);
    }
  }
  return b;
}
