import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { ErrorCode, type ErrorBody } from '@switchboard/contracts';
import { proxySpan, redactUrl, tracingEnabled } from '@switchboard/platform';
import { GATEWAY_ROUTE_TABLE, serviceForPath } from './route-table';
import { neverReached, poolFor, type UpstreamPool } from './upstreams';

export interface ReverseProxyOptions {
  /** Service name -> base URL. */
  routes: Record<string, string>;
  /** First path segment under /api -> service name. */
  table?: Readonly<Record<string, string>>;
  /** Idle time (no bytes either way) before the call is abandoned. Default 30 000 ms. */
  timeoutMs?: number;
  /** Paths under /api the gateway answers itself. */
  ownPaths?: RegExp;
}

/** Connection-level headers (RFC 9110 section 7.6.1) that a proxy must not forward, plus `expect` (answered here). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

const REQUEST_ID = /^[\w-]{8,64}$/;
/** `.` or `..` segments, plain or percent-encoded: refused rather than normalised differently from the upstream. */
const DOT_SEGMENT = /\/(\.|%2e){1,2}(\/|$|\?)/i;

function withoutHopByHop(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const listed = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * The client as the gateway resolves it: the socket's peer, or, when that peer is a proxy the gateway trusts
 * (TRUST_PROXY), the address that proxy reported (Express's `req.ip` walks X-Forwarded-For only through trusted hops).
 */
function clientAddress(req: Request): string {
  const a = req.ip ?? req.socket.remoteAddress ?? '';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
}

function sendError(res: Response, status: number, message: string, code: string = ErrorCode.General): void {
  const body: ErrorBody = { code, message, status };
  res.status(status).json(body);
}

class UpstreamTimeout extends Error {}

/**
 * Distributed mode's `/api` reverse proxy on node:http: streams bodies both ways, keeps method, path, query,
 * headers and status, sets `X-Forwarded-For` to the client's address and passes `X-Request-Id` on (or makes one).
 * Mounted ahead of the body parsers, so the upstream receives the exact bytes the client sent.
 */
export class ReverseProxy {
  private readonly logger = new Logger('GatewayProxy');
  // Idle pooled sockets close after 4 s, before Node's default 5 s server keep-alive timeout closes them under us.
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 512, timeout: 4000 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 512, timeout: 4000 });
  private readonly table: Readonly<Record<string, string>>;
  private readonly timeoutMs: number;
  private readonly ownPaths: RegExp;

  constructor(private readonly options: ReverseProxyOptions) {
    this.table = options.table ?? GATEWAY_ROUTE_TABLE;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.ownPaths = options.ownPaths ?? /^\/api\/(health|lang)(\/|$)/;
  }

  readonly handle = (req: Request, res: Response, next: NextFunction): void => {
    const url = req.url;
    const pathname = url.split('?')[0];
    if (!/^\/api(\/|$)/.test(pathname) || this.ownPaths.test(pathname)) return next();
    if (DOT_SEGMENT.test(url)) return sendError(res, 400, 'dot segments are not allowed in the path', ErrorCode.RequestValidation);
    const service = serviceForPath(pathname, this.table);
    if (!service) return sendError(res, 404, `no service serves ${pathname}`, ErrorCode.NotFound);
    const route = this.options.routes[service];
    if (!route) return sendError(res, 502, `service ${service} is not configured on this gateway`);
    this.forward(req, res, service, poolFor(route));
  };

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private forward(req: Request, res: Response, service: string, pool: UpstreamPool): void {
    const headers = withoutHopByHop(req.headers);
    delete headers.host;
    const incomingId = req.headers['x-request-id'];
    const requestId = typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    headers['x-request-id'] = requestId;
    res.setHeader('x-request-id', requestId);
    // Exactly one address: the client as resolved above. A chain the client sent itself is dropped (it could name any
    // address), and so are the trusted hops in front of the gateway: the services trust the gateway alone
    // (their TRUST_PROXY), so the last address they are given must be the client's.
    headers['x-forwarded-for'] = clientAddress(req);
    // Proto and host only pass through from a proxy the gateway trusts (TRUST_PROXY); otherwise they are ours.
    const trust = req.app.get('trust proxy fn') as ((addr: string, i: number) => boolean) | undefined;
    const trusted = !!trust && trust(req.socket.remoteAddress ?? '', 0);
    if (!trusted || !req.headers['x-forwarded-proto']) headers['x-forwarded-proto'] = req.protocol;
    if (!trusted || !req.headers['x-forwarded-host']) headers['x-forwarded-host'] = req.headers.host ?? '';

    // OpenTelemetry (when started): the upstream call is a span of the caller's trace, its traceparent sent upstream.
    const endSpan = proxySpan(`proxy ${service}`, req.headers, headers);
    if (tracingEnabled()) res.once('close', () => endSpan(res.statusCode));

    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    // The client went away: stop the upstream work too.
    let current: http.ClientRequest | null = null;
    res.on('close', () => {
      if (!res.writableFinished) current?.destroy();
    });
    this.send(req, res, service, pool, pool.order(), 0, headers, hasBody, 0, (r) => (current = r));
  }

  /**
   * Sends to `urls[index]`. A replica the request never reached (refused, unreachable, reset before connecting) is
   * marked down and the next one is tried: a body is piped only once the connection is up, so it is still unread
   * then. Anything after that (an error mid-body, a timeout, a broken answer) is not retried: the replica may have
   * acted on it.
   */
  private send(
    req: Request,
    res: Response,
    service: string,
    pool: UpstreamPool,
    urls: URL[],
    index: number,
    headers: http.OutgoingHttpHeaders,
    hasBody: boolean,
    attempt: number,
    track: (r: http.ClientRequest) => void,
  ): void {
    const base = urls[index];
    const secure = base.protocol === 'https:';
    const upstream = (secure ? https : http).request({
      protocol: base.protocol,
      hostname: base.hostname,
      port: base.port || (secure ? 443 : 80),
      method: req.method,
      path: `${base.pathname.replace(/\/$/, '')}${req.url}`,
      headers,
      agent: secure ? this.httpsAgent : this.httpAgent,
    });
    track(upstream);
    upstream.setTimeout(this.timeoutMs, () => upstream.destroy(new UpstreamTimeout(`no answer from ${service} in ${this.timeoutMs} ms`)));
    let connected = false;
    upstream.on('socket', (socket) => {
      const go = () => {
        connected = true;
        if (hasBody) req.pipe(upstream);
      };
      if ((socket as { connecting?: boolean }).connecting) socket.once('connect', go);
      else go();
    });

    upstream.on('response', (up) => {
      if (pool.isDown(base)) pool.markUp(base);
      res.writeHead(up.statusCode ?? 502, up.statusMessage, withoutHopByHop(up.headers));
      up.pipe(res);
      up.on('error', () => res.destroy());
    });
    upstream.on('error', (err) => {
      if (res.destroyed || res.writableEnded) return;
      if (res.headersSent) {
        // Mid-response: the status is gone, so cut the connection rather than send a truncated body as complete.
        res.destroy();
        return;
      }
      // A pooled keep-alive socket the upstream had just closed: nothing reached it, so a bodiless call is retried once.
      if (!hasBody && attempt === 0 && upstream.reusedSocket && (err as NodeJS.ErrnoException).code === 'ECONNRESET') {
        return this.send(req, res, service, pool, urls, index, headers, hasBody, 1, track);
      }
      if (!(err instanceof UpstreamTimeout) && neverReached(err, connected)) {
        pool.markDown(base);
        if (index + 1 < urls.length) {
          this.logger.warn(`${service} replica ${base.host} unreachable (${(err as NodeJS.ErrnoException).code ?? err.message}): trying the next one`);
          return this.send(req, res, service, pool, urls, index + 1, headers, hasBody, 0, track);
        }
      }
      if (hasBody) {
        req.unpipe(upstream);
        req.resume();
      }
      if (err instanceof UpstreamTimeout) {
        this.logger.warn(`${req.method} ${redactUrl(req.url)}: ${err.message}`);
        return sendError(res, 504, `service ${service} did not answer in time`);
      }
      this.logger.warn(`${req.method} ${redactUrl(req.url)}: ${service} unavailable (${(err as NodeJS.ErrnoException).code ?? err.message})`);
      sendError(res, 502, `service ${service} is unavailable`);
    });
    if (!hasBody) upstream.end();
  }
}
