import 'reflect-metadata';
import { ConfigError, openServiceDataSource } from '@switchboard/platform';
import { loadCampaignsMigrateConfig } from './campaigns.config';
import { CAMPAIGNS_CONNECTION, CAMPAIGNS_SCHEMA } from './campaigns.options';
import { CAMPAIGNS_MIGRATIONS } from './migrations';

/** The migration step of distributed mode: `node dist/services/campaigns/src/migrate.js` runs the campaigns schema's migrations and exits. */
async function migrate(): Promise<void> {
  const { DATABASE_URL } = loadCampaignsMigrateConfig();
  const ds = await openServiceDataSource({ name: CAMPAIGNS_CONNECTION, url: DATABASE_URL, schema: CAMPAIGNS_SCHEMA, entities: [], migrations: CAMPAIGNS_MIGRATIONS, migrationsRun: true, logging: true });
  await ds.destroy();
  console.log('campaigns: migrations applied');
}

migrate().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
