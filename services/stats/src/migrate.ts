import 'reflect-metadata';
import { ConfigError, openServiceDataSource } from '@switchboard/platform';
import { loadStatsMigrateConfig } from './stats.config';
import { STATS_CONNECTION, STATS_SCHEMA } from './stats.options';
import { STATS_MIGRATIONS } from './migrations';

/** The migration Job of distributed mode: `node dist/services/stats/src/migrate.js` runs the stats schema's migrations and exits. */
async function migrate(): Promise<void> {
  const { DATABASE_URL } = loadStatsMigrateConfig();
  const ds = await openServiceDataSource({ name: STATS_CONNECTION, url: DATABASE_URL, schema: STATS_SCHEMA, entities: [], migrations: STATS_MIGRATIONS, migrationsRun: true, logging: true });
  await ds.destroy();
  console.log('stats: migrations applied');
}

migrate().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
