import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface VendorCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * The base of the local vendor servers: records every call, and misbehaves like real vendors on request: the next
 * calls answered 429 with Retry-After, or 5xx (an outage), before the vendor's own handler answers again.
 */
export abstract class FakeVendor {
  readonly calls: VendorCall[] = [];
  private server!: Server;
  private readonly injected: Answer[] = [];
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The next `n` API calls answer 429 with `Retry-After: seconds`. */
  rateLimitNext(n: number, seconds: number): void {
    for (let i = 0; i < n; i++) this.injected.push({ status: 429, body: { status: 'error', message: 'You have reached your secondly limit.' }, headers: { 'retry-after': String(seconds) } });
  }

  /** The next `n` API calls answer `status` (an outage). */
  failNext(n: number, status = 503): void {
    for (let i = 0; i < n; i++) this.injected.push({ status, body: { message: 'Service Unavailable' } });
  }

  protected abstract handle(call: VendorCall): Answer | Promise<Answer>;

  /** Paths that are never answered by an injected failure (the token endpoint in some tests). */
  protected exempt(_call: VendorCall): boolean {
    return false;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const u = new URL(req.url ?? '/', 'http://x');
        const call: VendorCall = { method: req.method ?? 'GET', path: u.pathname, query: u.searchParams, headers: req.headers, body };
        this.calls.push(call);
        const injected = !this.exempt(call) ? this.injected.shift() : undefined;
        Promise.resolve(injected ?? this.handle(call))
          .then((a) => send(res, a))
          .catch((e: Error) => send(res, { status: 500, body: { message: e.message } }));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  protected json(call: VendorCall): Record<string, unknown> {
    return call.body ? (JSON.parse(call.body) as Record<string, unknown>) : {};
  }

  protected form(call: VendorCall): URLSearchParams {
    return new URLSearchParams(call.body);
  }
}

function send(res: ServerResponse, a: Answer): void {
  res.writeHead(a.status, { 'content-type': 'application/json', ...(a.headers ?? {}) });
  res.end(a.body === undefined ? '' : JSON.stringify(a.body));
}

/** Issues and checks OAuth tokens like the vendors do: codes once, access tokens that expire, refresh tokens that rotate or not. */
export class TokenIssuer {
  readonly codes = new Set<string>();
  readonly access = new Map<string, number>();
  readonly refresh = new Set<string>();
  private n = 0;
  constructor(
    private readonly o: { clientId: string; clientSecret: string; ttlSeconds: number; rotateRefresh: boolean; now: () => number; prefix: string },
  ) {}

  newCode(): string {
    const c = `code-${++this.n}`;
    this.codes.add(c);
    return c;
  }

  /** Issues a pair for a code or a refresh token; null when the grant or the client is wrong. */
  grant(p: { grantType: string | null; code?: string | null; refreshToken?: string | null; clientId?: string | null; clientSecret?: string | null }): { access_token: string; refresh_token: string; expires_in: number } | null {
    if (p.clientId !== this.o.clientId || p.clientSecret !== this.o.clientSecret) return null;
    let refresh: string;
    if (p.grantType === 'authorization_code') {
      if (!p.code || !this.codes.delete(p.code)) return null;
      refresh = `${this.o.prefix}-refresh-${++this.n}`;
      this.refresh.add(refresh);
    } else if (p.grantType === 'refresh_token') {
      if (!p.refreshToken || !this.refresh.has(p.refreshToken)) return null;
      refresh = p.refreshToken;
      if (this.o.rotateRefresh) {
        this.refresh.delete(p.refreshToken);
        refresh = `${this.o.prefix}-refresh-${++this.n}`;
        this.refresh.add(refresh);
      }
    } else return null;
    const access = `${this.o.prefix}-access-${++this.n}`;
    this.access.set(access, this.o.now() + this.o.ttlSeconds * 1000);
    return { access_token: access, refresh_token: refresh, expires_in: this.o.ttlSeconds };
  }

  valid(token: string | undefined): boolean {
    if (!token) return false;
    const exp = this.access.get(token);
    return exp !== undefined && exp > this.o.now();
  }

  /** Every access token stops working (the vendor revoked them early). */
  revokeAccess(): void {
    this.access.clear();
  }
}

export const bearerOf = (call: VendorCall): string | undefined => /^Bearer (.+)$/.exec(String(call.headers.authorization ?? ''))?.[1];
