import { randomUUID } from 'node:crypto';
import { RequestMethod, type INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import type { NextFunction, Request, Response } from 'express';
import { RequestContext } from '../context/request-context';
import { ACCESS_KEY, type AccessRule } from './decorators';
import { ErrorBodyFilter } from './exception.filter';
import { createValidationPipe } from './validation';

export interface HttpAppOptions {
  /** `false` (default): the client address is the socket's, whatever X-Forwarded-For says. Otherwise Express's trust proxy value (e.g. `loopback`, a CIDR list). */
  trustProxy?: string | false;
  bodyLimit?: string;
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
  express.set('trust proxy', options.trustProxy ? options.trustProxy : false);
  express.disable('x-powered-by');
  app.useBodyParser('json', { limit: options.bodyLimit ?? '1mb' });
  app.use(requestContextMiddleware);
  app.setGlobalPrefix('api', { exclude: [{ path: 'realtime', method: RequestMethod.GET }] });
  app.useGlobalFilters(new ErrorBodyFilter());
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
}

export interface RouteAccess {
  method: string;
  path: string;
  controller: string;
  handler: string;
  rule: AccessRule | undefined;
}

/** Every registered route with its declared access rule; used by the test that fails on a route without one. */
export function listRoutes(app: INestApplication): RouteAccess[] {
  const discovery = app.get(DiscoveryService);
  const scanner = app.get(MetadataScanner);
  const reflector = app.get(Reflector);
  const out: RouteAccess[] = [];
  for (const wrapper of discovery.getControllers()) {
    const instance = wrapper.instance as object | undefined;
    if (!instance) continue;
    const proto = Object.getPrototypeOf(instance) as object;
    const base = String(Reflect.getMetadata(PATH_METADATA, wrapper.metatype as object) ?? '');
    for (const name of scanner.getAllMethodNames(proto)) {
      const handler = (proto as Record<string, unknown>)[name] as object;
      const path = Reflect.getMetadata(PATH_METADATA, handler);
      if (path === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
      const rule = reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_KEY, [handler as () => void, wrapper.metatype as () => void]);
      out.push({ method, path: `/${[base, String(path)].filter((s) => s && s !== '/').join('/')}`.replace(/\/+/g, '/'), controller: wrapper.name, handler: name, rule });
    }
  }
  return out;
}
