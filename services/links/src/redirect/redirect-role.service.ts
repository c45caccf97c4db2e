import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Pool } from 'pg';
import { redirectPool } from './redirect-pool';
import { DATABASE_URL } from '@switchboard/platform';
import { LINKS_OPTIONS, type ResolvedLinksOptions } from '../links.options';
import { LinksOutboxRelay } from '../services/links-events.service';
import { RedirectServer } from './redirect-server';

/**
 * The redirect server inside a Nest process (embedded mode, or `PROCESS_ROLES=redirect` of main.js): the same raw
 * node:http server as main-redirect.js, on its own port, with its own small connection pool. The click events it
 * writes are published by this process's outbox relay (kicked after each commit).
 */
@Injectable()
export class RedirectRoleService implements OnApplicationBootstrap, OnModuleDestroy {
  private server: RedirectServer | null = null;
  private pool: Pool | null = null;
  private readonly log = new Logger('links.redirect');

  constructor(
    @Inject(DATABASE_URL) private readonly databaseUrl: string,
    @Inject(LINKS_OPTIONS) private readonly options: ResolvedLinksOptions,
    private readonly relay: LinksOutboxRelay,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const r = this.options.redirect;
    this.pool = redirectPool(this.databaseUrl, 8, 'links-redirect', (line) => this.log.warn(line));
    this.server = new RedirectServer({
      pool: this.pool,
      port: r.port,
      host: r.host,
      publicScheme: r.publicScheme,
      trustProxy: r.trustProxy,
      cacheTtlMs: r.cacheTtlMs,
      codeSecret: this.options.codeSecret,
      clicks: { flushMs: r.clickFlushMs, bufferMax: r.clickBufferMax, onCommitted: () => this.relay.kick() },
      onError: (e) => this.log.warn(`redirect: ${(e as Error).message}`),
    });
    const port = await this.server.listen();
    this.log.log(`short links served on http://${r.host}:${port}/{code}`);
  }

  /** The running server (its port, cache and click recorder); null before bootstrap. */
  get running(): RedirectServer | null {
    return this.server;
  }

  async onModuleDestroy(): Promise<void> {
    await this.server?.close();
    await this.pool?.end();
    this.server = null;
    this.pool = null;
  }
}
