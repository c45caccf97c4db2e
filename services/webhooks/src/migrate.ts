import 'reflect-metadata';
import { ConfigError, openServiceDataSource } from '@switchboard/platform';
import { WEBHOOKS_MIGRATIONS } from './migrations';
import { loadWebhooksMigrateConfig } from './webhooks.config';
import { WEBHOOKS_CONNECTION, WEBHOOKS_SCHEMA } from './webhooks.options';

/** The migration Job of distributed mode: `node dist/services/webhooks/src/migrate.js`. */
async function migrate(): Promise<void> {
  const { DATABASE_URL } = loadWebhooksMigrateConfig();
  const ds = await openServiceDataSource({ name: WEBHOOKS_CONNECTION, url: DATABASE_URL, schema: WEBHOOKS_SCHEMA, entities: [], migrations: WEBHOOKS_MIGRATIONS, migrationsRun: true, logging: true });
  await ds.destroy();
  console.log('webhooks: migrations applied');
}

migrate().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
