import 'reflect-metadata';
import { ConfigError, openServiceDataSource } from '@switchboard/platform';
import { loadIntegrationsMigrateConfig } from './integrations.config';
import { INTEGRATIONS_CONNECTION, INTEGRATIONS_SCHEMA } from './integrations.options';
import { INTEGRATIONS_MIGRATIONS } from './migrations';

/** The migration Job of distributed mode: `node dist/services/integrations/src/migrate.js` runs the integrations schema's migrations and exits. */
async function migrate(): Promise<void> {
  const { DATABASE_URL } = loadIntegrationsMigrateConfig();
  const ds = await openServiceDataSource({ name: INTEGRATIONS_CONNECTION, url: DATABASE_URL, schema: INTEGRATIONS_SCHEMA, entities: [], migrations: INTEGRATIONS_MIGRATIONS, migrationsRun: true, logging: true });
  await ds.destroy();
  console.log('integrations: migrations applied');
}

migrate().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
