import type { Pool } from 'pg';
import { redirectPool } from './redirect-pool';
import type { RedirectConfig } from './redirect.config';
import { RedirectServer, type RedirectServerOptions } from './redirect-server';

export interface RunningRedirect {
  server: RedirectServer;
  url: string;
  close: () => Promise<void>;
}

/** The redirect server on its own (no Nest, no bus): a pool, the raw node:http server, `/-/health` for probes. */
export async function startRedirect(c: RedirectConfig, log: (line: string) => void = () => undefined): Promise<RunningRedirect> {
  const pool = redirectPool(c.DATABASE_URL, 8, 'links-redirect', log);
  const server = redirectServerFor(c, pool, log);
  const port = await server.listen();
  return {
    server,
    url: `http://${c.HOST === '0.0.0.0' ? '127.0.0.1' : c.HOST}:${port}`,
    close: async () => {
      await server.close();
      await pool.end();
    },
  };
}

/** The redirect server a configuration describes: the single process's, and each cluster worker's with its click sink. */
export function redirectServerFor(c: RedirectConfig, pool: Pool, log: (line: string) => void, clickSink?: RedirectServerOptions['clickSink']): RedirectServer {
  return new RedirectServer({
    pool,
    port: c.PORT,
    host: c.HOST,
    publicScheme: c.LINKS_PUBLIC_SCHEME,
    trustProxy: c.TRUST_PROXY,
    cacheTtlMs: c.LINKS_CACHE_TTL_MS,
    codeSecret: c.LINKS_CODE_SECRET,
    clicks: { flushMs: c.LINKS_CLICK_FLUSH_MS, bufferMax: c.LINKS_CLICK_BUFFER_MAX, commitIntervalMs: c.LINKS_CLICK_COMMIT_INTERVAL_MS },
    fastPath: c.LINKS_REDIRECT_FAST_PATH,
    ...(clickSink ? { clickSink } : {}),
    onError: (e) => log(`redirect: ${(e as Error).message}`),
  });
}
