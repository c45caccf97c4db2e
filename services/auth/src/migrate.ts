import 'reflect-metadata';
import { ConfigError, openServiceDataSource } from '@switchboard/platform';
import { loadAuthMigrateConfig } from './auth.config';
import { AUTH_CONNECTION } from './auth.options';
import { AUTH_ENTITIES } from './entities';
import { AUTH_MIGRATIONS } from './migrations';

/** The migration Job of distributed mode: `node dist/services/auth/src/migrate.js` runs the auth schema's migrations and exits. */
async function migrate(): Promise<void> {
  const { DATABASE_URL } = loadAuthMigrateConfig();
  const ds = await openServiceDataSource({ name: AUTH_CONNECTION, url: DATABASE_URL, schema: 'auth', entities: AUTH_ENTITIES, migrations: AUTH_MIGRATIONS, migrationsRun: true, logging: true });
  await ds.destroy();
  console.log('auth: migrations applied');
}

migrate().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
