import 'reflect-metadata';
import { ConfigError, openServiceDataSource } from '@switchboard/platform';
import { loadAccountsMigrateConfig } from './accounts.config';
import { ACCOUNTS_CONNECTION, ACCOUNTS_SCHEMA } from './accounts.options';
import { ACCOUNTS_ENTITIES } from './entities';
import { ACCOUNTS_MIGRATIONS } from './migrations';

/** The migration Job of distributed mode: `node dist/services/accounts/src/migrate.js` runs the accounts schema's migrations and exits. */
async function migrate(): Promise<void> {
  const { DATABASE_URL } = loadAccountsMigrateConfig();
  const ds = await openServiceDataSource({
    name: ACCOUNTS_CONNECTION,
    url: DATABASE_URL,
    schema: ACCOUNTS_SCHEMA,
    entities: ACCOUNTS_ENTITIES,
    migrations: ACCOUNTS_MIGRATIONS,
    migrationsRun: true,
    logging: true,
  });
  await ds.destroy();
  console.log('accounts: migrations applied');
}

migrate().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
