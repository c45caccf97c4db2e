import { Client } from 'pg';
import { DataSource, type DataSourceOptions, type EntitySchema, type MixedList } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { SnakeNamingStrategy } from './naming';
import { pgArrayParameters } from './pg-literals';
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

/** The parameters with each array of plain values as its literal (pgArrayParameters); the same array when it has none. */
function withArrayLiterals(values: unknown[]): unknown[] {
  for (const v of values) if (Array.isArray(v)) return pgArrayParameters(values);
  return values;
}

/**
 * node-postgres' client with every statement's array parameters of plain values (uuids, ids, statuses, numbers,
 * booleans, nulls) written as their literal in one join, as 0191 did for a few hot statements by hand: the driver
 * escapes such an array element by element (`arrayString`: a `prepareValue` and two regular expressions each), which
 * was ~40 µs of main thread a campaign message over the status consumers' unnest columns. The literal is the driver's own,
 * byte for byte (pg-literals.spec.ts); any other array (texts with quotes or backslashes, dates, nested arrays, buffers)
 * is left to the driver, as are cursors and COPY streams (submittables). The pool of every service's data source uses it.
 */
export class ArrayLiteralClient extends Client {}
const clientQuery = Client.prototype.query as (this: Client, ...args: unknown[]) => unknown;
(ArrayLiteralClient.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: Client, config: unknown, values?: unknown, callback?: unknown) {
  if (typeof config === 'string') {
    if (Array.isArray(values)) values = withArrayLiterals(values);
  } else if (config !== null && typeof config === 'object' && typeof (config as { submit?: unknown }).submit !== 'function') {
    const given = (config as { values?: unknown }).values;
    if (Array.isArray(given)) {
      const written = withArrayLiterals(given);
      if (written !== given) config = { ...config, values: written };
    }
  }
  return clientQuery.call(this, config, values, callback);
};

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
    extra: { max: o.poolSize ?? 10, options: `-c search_path=${o.schema},public`, Client: ArrayLiteralClient },
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
