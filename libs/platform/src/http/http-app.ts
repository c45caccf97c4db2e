import { randomUUID } from 'node:crypto';
import { RequestMethod, type INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import type { NextFunction, Request, Response } from 'express';
import { RequestContext } from '../context/request-context';
import { ACCESS_KEY, type AccessRule } from './decorators';
import { bodyParserErrorHandler, ErrorBodyFilter } from './exception.filter';
import { createValidationPipe } from './validation';

export interface HttpAppOptions {
  /**
   * `false` (default): the client address is the socket's, whatever X-Forwarded-For says. Otherwise Express's trust
   * proxy value naming the trusted proxies (`loopback`, `uniquelocal`, a CIDR list) or a hop count. Trusting every
   * hop (`true`) is refused: anyone could then choose their own address and pass an IP ACL.
   */
  trustProxy?: string | number | false;
  bodyLimit?: string;
}

/** Normalises a trust-proxy setting as it comes from the environment. */
export function trustProxySetting(value: string | number | boolean | undefined): string | number | false {
  if (value === undefined || value === false) return false;
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0) throw new Error(`trust proxy: invalid hop count ${value}`);
    return value === 0 ? false : value;
  }
  if (value === true) throw new Error('trust proxy: `true` trusts every hop and lets any client forge its address; name the proxies instead');
  const v = value.trim();
  if (v === '' || /^(false|0|no|off)$/i.test(v)) return false;
  if (/^(true|yes|on|\*)$/i.test(v)) throw new Error(`trust proxy: "${v}" trusts every hop and lets any client forge its address; name the proxies instead`);
  if (/^\d+$/.test(v)) return Number(v);
  return v;
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
  const express = app.getHttpAdapter().getInstance() as { set: (k: string, v: unknown) => void; disable: (k: string) => void };
  express.set('trust proxy', trustProxySetting(options.trustProxy));
  express.disable('x-powered-by');
  const limit = options.bodyLimit ?? '1mb';
  // Both parsers with the same limit, and their errors turned into error bodies before Nest rewrites them.
  app.useBodyParser('json', { limit });
  app.useBodyParser('urlencoded', { limit, extended: true });
  app.use(bodyParserErrorHandler);
  app.use(requestContextMiddleware);
  app.setGlobalPrefix('api', { exclude: [{ path: 'realtime', method: RequestMethod.GET }] });
  app.useGlobalFilters(new ErrorBodyFilter());
  app.useGlobalPipes(createValidationPipe());
  // No enableShutdownHooks(): every process's main handles SIGINT/SIGTERM itself and closes the app once; Nest's own
  // signal hook would run the shutdown hooks a second time.
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
