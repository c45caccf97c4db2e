import 'reflect-metadata';
import { ConfigError, openServiceDataSource } from '@switchboard/platform';
import { loadLinksMigrateConfig } from './links.config';
import { LINKS_CONNECTION, LINKS_SCHEMA } from './links.options';
import { LINKS_MIGRATIONS } from './migrations';

/** The migration Job of distributed mode: `node dist/services/links/src/migrate.js` runs the links schema's migrations and exits. */
async function migrate(): Promise<void> {
  const { DATABASE_URL } = loadLinksMigrateConfig();
  const ds = await openServiceDataSource({ name: LINKS_CONNECTION, url: DATABASE_URL, schema: LINKS_SCHEMA, entities: [], migrations: LINKS_MIGRATIONS, migrationsRun: true, logging: true });
  await ds.destroy();
  console.log('links: migrations applied');
}

migrate().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
