import 'reflect-metadata';
import { ConfigError, openServiceDataSource } from '@switchboard/platform';
import { loadContactsMigrateConfig } from './contacts.config';
import { CONTACTS_CONNECTION, CONTACTS_SCHEMA } from './contacts.options';
import { CONTACTS_MIGRATIONS } from './migrations';

/** The migration Job of distributed mode: `node dist/services/contacts/src/migrate.js` runs the contacts schema's migrations and exits. */
async function migrate(): Promise<void> {
  const { DATABASE_URL } = loadContactsMigrateConfig();
  const ds = await openServiceDataSource({ name: CONTACTS_CONNECTION, url: DATABASE_URL, schema: CONTACTS_SCHEMA, entities: [], migrations: CONTACTS_MIGRATIONS, migrationsRun: true, logging: true });
  await ds.destroy();
  console.log('contacts: migrations applied');
}

migrate().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
