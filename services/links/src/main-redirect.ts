import { availableParallelism } from 'node:os';
import { ConfigError } from '@switchboard/platform';
import { isRedirectWorker, runRedirectPrimary, runRedirectWorker } from './redirect/cluster-redirect';
import { loadRedirectConfig } from './redirect/redirect.config';
import { startRedirect } from './redirect/standalone-redirect';

/**
 * The redirect process (distributed mode): `node dist/services/links/src/main-redirect.js`. Raw node:http and a
 * PostgreSQL pool, nothing else; scaled by its own Deployment and HPA. LINKS_REDIRECT_WORKERS cluster workers (0: one
 * per core) share the port and the primary's click group commit (docs/decisions/0057); 1 (the default, 0168) runs a
 * single process.
 * SIGTERM writes the clicks still waiting.
 */
async function main(): Promise<void> {
  const config = loadRedirectConfig();
  const log = (line: string) => console.log(`[links-redirect${isRedirectWorker() ? ` ${process.pid}` : ''}] ${line}`);
  if (!isRedirectWorker() && !config.LINKS_CODE_SECRET) log('no code secret (LINKS_CODE_SECRET): only links minted before ranges (docs/decisions/0092) resolve');
  if (isRedirectWorker()) return runRedirectWorker(config, log);
  const workers = config.LINKS_REDIRECT_WORKERS || availableParallelism();
  if (workers > 1) return runRedirectPrimary(config, workers, log);
  const running = await startRedirect(config, log);
  log(`short links served on ${running.url}/{code}`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping, writing ${running.server.clicks.pending} waiting clicks`);
    running
      .close()
      .then(() => process.exit(0))
      .catch((e: unknown) => {
        console.error(e);
        process.exit(1);
      });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
