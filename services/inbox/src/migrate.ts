import 'reflect-metadata';
import { ConfigError, openServiceDataSource } from '@switchboard/platform';
import { INBOX_MIGRATIONS } from './migrations';
import { loadInboxMigrateConfig } from './inbox.config';
import { INBOX_CONNECTION, INBOX_SCHEMA } from './inbox.options';

/** The migration step of distributed mode: `node dist/services/inbox/src/migrate.js`. */
async function migrate(): Promise<void> {
  const { DATABASE_URL } = loadInboxMigrateConfig();
  const ds = await openServiceDataSource({ name: INBOX_CONNECTION, url: DATABASE_URL, schema: INBOX_SCHEMA, entities: [], migrations: INBOX_MIGRATIONS, migrationsRun: true, logging: true });
  await ds.destroy();
  console.log('inbox: migrations applied');
}

migrate().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
