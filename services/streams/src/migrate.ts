import 'reflect-metadata';
import { ConfigError, openServiceDataSource } from '@switchboard/platform';
import { STREAMS_ENTITIES } from './entities';
import { STREAMS_MIGRATIONS } from './migrations';
import { loadStreamsMigrateConfig } from './streams.config';
import { STREAMS_CONNECTION, STREAMS_SCHEMA } from './streams.options';

/** The migration Job of distributed mode: `node dist/services/streams/src/migrate.js`. */
async function migrate(): Promise<void> {
  const { DATABASE_URL } = loadStreamsMigrateConfig();
  const ds = await openServiceDataSource({ name: STREAMS_CONNECTION, url: DATABASE_URL, schema: STREAMS_SCHEMA, entities: STREAMS_ENTITIES, migrations: STREAMS_MIGRATIONS, migrationsRun: true, logging: true });
  await ds.destroy();
  console.log('streams: migrations applied');
}

migrate().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
