import 'reflect-metadata';
import { ConfigError, openServiceDataSource } from '@switchboard/platform';
import { rebuildRollups } from './rebuild';
import { loadStatsMigrateConfig } from './stats.config';
import { STATS_CONNECTION, STATS_SCHEMA } from './stats.options';
import { STATS_MIGRATIONS } from './migrations';

/** `DATABASE_URL=... node dist/services/stats/src/rebuild-cli.js`: migrates, then recomputes every rollup from the message states. */
async function main(): Promise<void> {
  const { DATABASE_URL } = loadStatsMigrateConfig();
  const ds = await openServiceDataSource({ name: STATS_CONNECTION, url: DATABASE_URL, schema: STATS_SCHEMA, entities: [], migrations: STATS_MIGRATIONS, migrationsRun: true });
  try {
    const { messages } = await rebuildRollups(ds);
    console.log(`stats: rollups rebuilt from ${messages} messages`);
  } finally {
    await ds.destroy();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
