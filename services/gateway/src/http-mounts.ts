import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Express, RequestHandler } from 'express';
import { GATEWAY_OPTIONS, type GatewayOptions } from './gateway.options';
import { ReverseProxy } from './proxy/reverse-proxy';
import { adminStaticHandler } from './static/admin-static';

interface ExpressWithRouter {
  router: { stack: unknown[] };
}

/**
 * Express-level handlers of the gateway that are not Nest routes: the admin build (after the routes) and, in
 * distributed mode, the /api reverse proxy (before everything, in particular before the body parsers that
 * configureHttpApp installs, which would otherwise consume the bodies it must stream).
 */
@Injectable()
export class GatewayHttpMounts implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Gateway');
  private proxy: ReverseProxy | null = null;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(GATEWAY_OPTIONS) private readonly options: GatewayOptions,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return; // an application context without HTTP (scripts)
    if (adapter.getType() !== 'express') throw new Error('the gateway needs the Express platform');
    const app = adapter.getInstance<Express>();

    const routes = this.options.routes ?? {};
    if (this.options.mode === 'distributed') {
      if (Object.keys(routes).length) {
        this.proxy = new ReverseProxy({ routes, table: this.options.proxy?.table, timeoutMs: this.options.proxy?.timeoutMs });
        this.mountFirst(app, this.proxy.handle);
        this.logger.log(`proxying /api to ${Object.entries(routes).map(([s, u]) => `${s}=${u}`).join(', ')}`);
      } else {
        this.logger.warn('distributed mode without GATEWAY_ROUTES: /api is not proxied anywhere');
      }
    }
    // Nest registered its routes before this hook, so the SPA only sees requests no route answered.
    if (this.options.adminDistDir) app.use(adminStaticHandler(this.options.adminDistDir));
  }

  onModuleDestroy(): void {
    this.proxy?.close();
  }

  private mountFirst(app: Express, handler: RequestHandler): void {
    app.use(handler);
    const stack = (app as unknown as ExpressWithRouter).router.stack;
    stack.unshift(stack.pop());
  }
}
