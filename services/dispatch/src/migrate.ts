import 'reflect-metadata';
import { ConfigError, openServiceDataSource } from '@switchboard/platform';
import { loadDispatchMigrateConfig } from './dispatch.config';
import { DISPATCH_CONNECTION, DISPATCH_SCHEMA } from './dispatch.options';
import { DISPATCH_MIGRATIONS } from './migrations';

/** The migration Job of distributed mode: `node dist/services/dispatch/src/migrate.js`. */
async function migrate(): Promise<void> {
  const { DATABASE_URL } = loadDispatchMigrateConfig();
  const ds = await openServiceDataSource({ name: DISPATCH_CONNECTION, url: DATABASE_URL, schema: DISPATCH_SCHEMA, entities: [], migrations: DISPATCH_MIGRATIONS, migrationsRun: true, logging: true });
  await ds.destroy();
  console.log('dispatch: migrations applied');
}

migrate().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
