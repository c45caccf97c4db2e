import { ConfigError } from '@switchboard/platform';
import { loadRedirectConfig } from './redirect/redirect.config';
import { startRedirect } from './redirect/standalone-redirect';

/**
 * The redirect process (distributed mode): `node dist/services/links/src/main-redirect.js`. Raw node:http and a
 * PostgreSQL pool, nothing else; scaled by its own Deployment and HPA. SIGTERM writes the clicks still waiting.
 */
async function main(): Promise<void> {
  const config = loadRedirectConfig();
  const log = (line: string) => console.log(`[links-redirect] ${line}`);
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
