import { Client } from 'pg';
import { DataSource, type DataSourceOptions, type EntitySchema, type MixedList } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { SnakeNamingStrategy } from './naming';
import { BoundedQueryLogger } from './query-logger';

export interface ServiceDatabaseOptions {
  /** The connection name, also the Nest injection name: one per service (`auth`, `accounts`, ...). */
  name: string;
  url: string;
  /** The service's own schema; it never reads another's. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM's own type for entity classes
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM's own type for migration classes
  migrations: MixedList<Function | string>;
  /** Run pending migrations when the data source initialises (embedded mode, tests). Distributed mode uses a Job. */
  migrationsRun?: boolean;
  poolSize?: number;
  logging?: boolean;
}

function assertSchemaName(schema: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema) || schema.startsWith('pg_')) throw new Error(`invalid schema name ${schema}`);
}

/**
 * Data source options for one service schema: snake_case names, migrations only, never synchronize. Every connection's
 * search_path starts with the service schema, so hand-written migration SQL and raw queries land in it too.
 */
export function serviceDataSourceOptions(o: ServiceDatabaseOptions): PostgresConnectionOptions {
  assertSchemaName(o.schema);
  return {
    name: o.name,
    type: 'postgres',
    url: o.url,
    schema: o.schema,
    entities: o.entities,
    migrations: o.migrations,
    migrationsTableName: 'migrations',
    migrationsRun: o.migrationsRun ?? false,
    migrationsTransactionMode: 'each',
    synchronize: false,
    namingStrategy: new SnakeNamingStrategy(),
    logging: o.logging ? ['error', 'warn', 'migration'] : ['error'],
    logger: new BoundedQueryLogger(o.logging ?? false),
    extra: { max: o.poolSize ?? 10, options: `-c search_path=${o.schema},public` },
    applicationName: `switchboard-${o.name}`,
  };
}

/** The migrations table lives in the service's schema, so the schema must exist before TypeORM looks for it. */
export async function ensureSchema(url: string, schema: string): Promise<void> {
  assertSchemaName(schema);
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } finally {
    await client.end();
  }
}

/** Creates the schema, connects, and runs the service's migrations. Used by the migration Job and by tests. */
export async function openServiceDataSource(o: ServiceDatabaseOptions): Promise<DataSource> {
  if (!(o.migrationsRun ?? true)) return openAndMigrate(o);
  // Every replica of a service may migrate at once (k8s runs the migration in each pod's initContainer): a session
  // advisory lock per schema makes them take turns, so the later ones find the migrations applied and run nothing.
  assertSchemaName(o.schema);
  const lock = new Client({ connectionString: o.url, application_name: `switchboard-${o.name}-migration-lock` });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`switchboard.migrations:${o.schema}`]);
    return await openAndMigrate(o);
  } finally {
    // ending the session releases its advisory lock
    await lock.end().catch(() => undefined);
  }
}

async function openAndMigrate(o: ServiceDatabaseOptions): Promise<DataSource> {
  await ensureSchema(o.url, o.schema);
  const ds = new DataSource(serviceDataSourceOptions(o) as DataSourceOptions);
  await ds.initialize();
  try {
    if (o.migrationsRun ?? true) await ds.runMigrations({ transaction: 'each' });
  } catch (e) {
    // A failed migration must not leave a pool of connections behind.
    await ds.destroy().catch(() => undefined);
    throw e;
  }
  return ds;
}
