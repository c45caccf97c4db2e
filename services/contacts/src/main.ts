import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigError } from '@switchboard/platform';
import { loadContactsConfig } from './contacts.config';
import { startContactsService } from './bootstrap';

/** Standalone contacts service (distributed mode): `node dist/services/contacts/src/main.js`. */
async function main(): Promise<void> {
  const log = new Logger('contacts');
  const config = loadContactsConfig();
  const service = await startContactsService(config);
  log.log(`listening on ${config.HOST}:${config.PORT}`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.log(`${signal}: stopping`);
    service
      .close()
      .then(() => process.exit(0))
      .catch((e: unknown) => {
        log.error(e);
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
