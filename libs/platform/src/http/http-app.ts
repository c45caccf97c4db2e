import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { RequestMethod, type INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import type { NextFunction, Request, Response } from 'express';
import { RequestContext } from '../context/request-context';
import { httpMetricsMiddleware, metricsHandler } from '../metrics/metrics';
import { httpTracingMiddleware } from '../tracing/tracing';
import { ACCESS_KEY, type AccessRule } from './decorators';
import { bodyParserErrorHandler, ErrorBodyFilter } from './exception.filter';
import { drainOnClose } from './http-drain';
import { RedactingLogger } from './redact';
import { createValidationPipe } from './validation';

export interface HttpAppOptions {
  /**
   * `false` (default): the client address is the socket's, whatever X-Forwarded-For says. Otherwise the trusted
   * proxies by address: a comma-separated list of IP addresses, CIDRs and Express's names (`loopback`, `linklocal`,
   * `uniquelocal`). Trusting every hop (`true`) or a hop count is refused: a count trusts whoever connects, so any
   * client reaching the service directly could then choose its own address and pass an IP ACL or a throttle.
   */
  trustProxy?: string | false;
  bodyLimit?: string;
}

const TRUST_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isTrustEntry(entry: string): boolean {
  if (TRUST_NAMES.has(entry)) return true;
  const [addr, bits, extra] = entry.split('/');
  const family = isIP(addr);
  if (!family || extra !== undefined) return false;
  if (bits === undefined) return true;
  if (family === 4 && isIP(bits) === 4) return true; // 10.0.0.0/255.0.0.0
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** Normalises a trust-proxy setting as it comes from the environment: `false`, or the list of trusted proxies. */
export function trustProxySetting(value: string | number | boolean | undefined): string | false {
  if (value === undefined || value === false || value === 0) return false;
  if (value === true) throw new Error('TRUST_PROXY: `true` trusts every hop and lets any client forge its address; name the proxies instead');
  if (typeof value === 'number') throw new Error(`TRUST_PROXY: a hop count (${value}) trusts whoever connects; name the proxies' addresses instead`);
  const v = value.trim();
  if (v === '' || /^(false|0|no|off)$/i.test(v)) return false;
  if (/^(true|yes|on|\*)$/i.test(v)) throw new Error(`TRUST_PROXY: "${v}" trusts every hop and lets any client forge its address; name the proxies instead`);
  if (/^\d+$/.test(v)) throw new Error(`TRUST_PROXY: a hop count (${v}) trusts whoever connects; name the proxies' addresses instead`);
  const entries = v.split(',').map((e) => e.trim()).filter(Boolean);
  const bad = entries.filter((e) => !isTrustEntry(e));
  if (bad.length) throw new Error(`TRUST_PROXY: not an IP address, CIDR or loopback/linklocal/uniquelocal: ${bad.join(', ')}`);
  return entries.join(', ');
}

/** Runs every request inside a RequestContext so services can read the caller and tenant. */
export function requestContextMiddleware(req: Request, res: Response, next: NextFunction): void {
  const header = req.headers['x-request-id'];
  const traceId = typeof header === 'string' && /^[\w-]{8,64}$/.test(header) ? header : randomUUID();
  res.setHeader('x-request-id', traceId);
  RequestContext.run({ principal: null, traceId, ip: req.ip ?? req.socket.remoteAddress ?? null }, () => next());
}

/** The common HTTP setup of every service: /api prefix, error bodies, validation, request context. */
export function configureHttpApp(app: NestExpressApplication, options: HttpAppOptions = {}): void {
  const express = app.getHttpAdapter().getInstance() as {
    set: (k: string, v: unknown) => void;
    disable: (k: string) => void;
    get: (path: string, handler: (req: Request, res: Response) => void) => void;
  };
  express.set('trust proxy', trustProxySetting(options.trustProxy));
  // a SIGTERM drains: answers in flight finish, keep-alive connections close behind them (see http-drain.ts)
  drainOnClose(app.getHttpServer() as Server);
  // credentials in URLs (a download's ?access_token=) and messages never reach a log line
  RedactingLogger.install();
  express.disable('x-powered-by');
  // No ETag on API answers (docs/decisions/0068): Express hashed every JSON body (SHA-1) for a revalidation that saves
  // only bytes (the answer is computed in full first) and that no client of the API makes. A function that answers
  // none, not `false`: the setting stays enabled for res.sendFile (the console's catalogues keep their stat ETag).
  express.set('etag', () => undefined);
  // Prometheus: every request timed by its route template; GET /metrics (outside /api) for scrapers inside the deployment
  app.use(httpMetricsMiddleware);
  // OpenTelemetry: a server span per request continuing the caller's traceparent (a no-op unless the SDK is started)
  app.use(httpTracingMiddleware);
  express.get('/metrics', (req, res) => void metricsHandler(req, res).catch(() => res.status(500).end()));
  const limit = options.bodyLimit ?? '1mb';
  // Both parsers with the same limit, and their errors turned into error bodies before Nest rewrites them.
  app.useBodyParser('json', { limit });
  app.useBodyParser('urlencoded', { limit, extended: true });
  preloadBodyDecoder();
  app.use(bodyParserErrorHandler);
  app.use(requestContextMiddleware);
  app.setGlobalPrefix('api', { exclude: [{ path: 'realtime', method: RequestMethod.GET }] });
  app.useGlobalFilters(new ErrorBodyFilter());
  app.useGlobalPipes(createValidationPipe());
  // No enableShutdownHooks(): every process's main handles SIGINT/SIGTERM itself and closes the app once; Nest's own
  // signal hook would run the shutdown hooks a second time.
}

/**
 * The body parsers read every body through raw-body, which decodes it with iconv-lite; iconv-lite loads its encoding
 * tables (ten modules, 10 to 15 ms of CPU here) on its first decoder, which was inside the first request a process
 * answered (docs/decisions/0137: the cold first dashboard call). Loaded with the app instead. The same iconv-lite the
 * parsers use (resolved from body-parser's raw-body); if that layout ever differs, the first request loads them as before.
 */
function preloadBodyDecoder(): void {
  try {
    const fromParser = createRequire(require.resolve('body-parser'));
    const iconv = createRequire(fromParser.resolve('raw-body'))('iconv-lite') as { getDecoder(encoding: string): unknown };
    iconv.getDecoder('utf-8');
  } catch {
    // not found where the parsers find it: nothing preloaded
  }
}

export interface RouteAccess {
  method: string;
  path: string;
  controller: string;
  handler: string;
  rule: AccessRule | undefined;
}

const paths = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : [v === undefined ? '' : String(v)]);

/** Every registered route with its declared access rule; used by the test that fails on a route without one. */
export function listRoutes(app: INestApplication): RouteAccess[] {
  const discovery = app.get(DiscoveryService);
  const scanner = app.get(MetadataScanner);
  const reflector = app.get(Reflector);
  const out: RouteAccess[] = [];
  for (const wrapper of discovery.getControllers()) {
    // The class, not the instance: request-scoped controllers have no instance yet, and their routes count too.
    const metatype = wrapper.metatype as (new (...args: unknown[]) => object) | undefined;
    if (!metatype?.prototype) continue;
    const proto = metatype.prototype as object;
    const bases = paths(Reflect.getMetadata(PATH_METADATA, metatype));
    for (const name of scanner.getAllMethodNames(proto)) {
      const handler = (proto as Record<string, unknown>)[name] as object;
      const routePath = Reflect.getMetadata(PATH_METADATA, handler);
      if (routePath === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
      const rule = reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_KEY, [handler as () => void, metatype]);
      for (const base of bases) {
        for (const p of paths(routePath)) {
          const full = `/${[base, p].filter((s) => s && s !== '/').join('/')}`.replace(/\/+/g, '/');
          out.push({ method, path: full, controller: metatype.name, handler: name, rule });
        }
      }
    }
  }
  return out;
}
