import type { QueryRunner } from 'typeorm';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Schema names are interpolated into SQL, so only plain lower-case identifiers are accepted. */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name "${schema}": expected a lower-case SQL identifier`);
  return `"${schema}"`;
}

/**
 * A per-schema alias for a table every service schema has (`outbox`, `processed_events`), for the platform's own
 * statements on it: `<table>_<schema>`. PostgreSQL 18 identifies a statement in pg_stat_statements by the names of the
 * relations it reads, not their oids, and without the schema: every service's relay read (or outbox insert, or
 * dedupe claim) was then ONE entry, shown under whichever schema's text came first (docs/decisions/0208). The alias is
 * part of the identity, so each schema's statement gets an entry of its own. Nothing else changes (plan, result).
 */
export function statementAlias(table: 'outbox' | 'processed_events', schema: string): string {
  quoteSchema(schema);
  return `${table}_${schema}`.slice(0, 63);
}

/**
 * DDL for a service schema's `outbox` and `processed_events` tables. The schema itself belongs to the service's
 * first migration. The partial index keeps the relay's poll cheap however many published rows accumulate.
 */
export function outboxTableSql(schema: string): string {
  const s = quoteSchema(schema);
  return `
CREATE TABLE ${s}.outbox (
  id bigserial PRIMARY KEY,
  event_id uuid NOT NULL UNIQUE,
  topic text NOT NULL,
  key text NOT NULL,
  type text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz NULL,
  attempts integer NOT NULL DEFAULT 0
);
CREATE INDEX outbox_unpublished_idx ON ${s}.outbox (id) WHERE published_at IS NULL;
ALTER TABLE ${s}.outbox ADD COLUMN packed text NULL;
ALTER TABLE ${s}.outbox ALTER COLUMN packed SET STORAGE EXTERNAL;
CREATE TABLE ${s}.processed_events (
  consumer text NOT NULL,
  event_id uuid NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);`;
}

/** For a TypeORM migration's `up`: `await createOutboxTables(queryRunner, 'campaigns')`. */
export async function createOutboxTables(queryRunner: Pick<QueryRunner, 'query'>, schema: string): Promise<void> {
  await queryRunner.query(outboxTableSql(schema));
}

/**
 * The `packed` column of `<schema>.outbox` (Outbox.addPacked): a whole batch of events as one JSON text. Plain text
 * stored uncompressed out of line, not jsonb: PostgreSQL then neither parses the document on insert nor rebuilds it on
 * select (measured: 8,000 events, 5.8 MB, 148 ms as jsonb against 23 ms as text, each way). Every service adds it
 * with a migration of its own (`addPackedOutboxColumn`).
 */
export function packedOutboxColumnSql(schema: string): string {
  const s = quoteSchema(schema);
  return `ALTER TABLE ${s}.outbox ADD COLUMN IF NOT EXISTS packed text NULL;
ALTER TABLE ${s}.outbox ALTER COLUMN packed SET STORAGE EXTERNAL;`;
}

export async function addPackedOutboxColumn(queryRunner: Pick<QueryRunner, 'query'>, schema: string): Promise<void> {
  await queryRunner.query(packedOutboxColumnSql(schema));
}

export async function dropPackedOutboxColumn(queryRunner: Pick<QueryRunner, 'query'>, schema: string): Promise<void> {
  await queryRunner.query(`ALTER TABLE ${quoteSchema(schema)}.outbox DROP COLUMN IF EXISTS packed`);
}

/** For the matching `down`. */
export async function dropOutboxTables(queryRunner: Pick<QueryRunner, 'query'>, schema: string): Promise<void> {
  const s = quoteSchema(schema);
  await queryRunner.query(`DROP TABLE IF EXISTS ${s}.processed_events; DROP TABLE IF EXISTS ${s}.outbox;`);
}
