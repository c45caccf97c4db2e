import { types as pgTypes, type CustomTypesConfig, type Pool, type PoolClient, type QueryResultRow } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs `text` as a named (server-side prepared) statement: PostgreSQL parses it once per connection and, once its
 * generic plan is chosen (after five executions, when it is no dearer than the custom ones), plans it no more. For a
 * hot statement that is long to plan and cheap to run (a group commit of a few rows, a relay's read of a few events),
 * an unnamed statement's parse and plan cost the server more than its execution (docs/decisions/0101).
 *
 * `on`: a data source (a pooled connection, outside any transaction: the statement is its own transaction) or the
 * entity manager of the caller's transaction (its connection). `name` must be unique per text in the process (a
 * connection refuses a name prepared with another text); the caller adds the schema for a text that names one.
 */
export async function preparedQuery<R extends QueryResultRow>(
  on: DataSource | EntityManager,
  name: string,
  text: string,
  values: unknown[],
  options: { jsonAsText?: boolean } = {},
): Promise<R[]> {
  const types = options.jsonAsText ? JSON_AS_TEXT : undefined;
  if (!('connection' in on)) {
    const pool = (on.driver as unknown as { master?: Pool }).master;
    if (!pool) throw new Error('preparedQuery needs an initialised PostgreSQL data source');
    return (await pool.query<R>({ name, text, values, types })).rows;
  }
  const client = (on.queryRunner as unknown as { databaseConnection?: PoolClient } | undefined)?.databaseConnection;
  if (!client) throw new Error("preparedQuery needs the caller's transaction: pass the manager given by dataSource.transaction()");
  return (await client.query<R>({ name, text, values, types })).rows;
}

const JSON_OID = 114;
const JSONB_OID = 3802;
const asText = (value: string): string => value;

/**
 * preparedQuery's `jsonAsText`: json and jsonb columns come back as PostgreSQL's text of them, unparsed (the outbox
 * relay parses a payload itself, and measures it by that text: docs/decisions/0194); every other type is parsed as
 * pg parses it everywhere else (its global parsers, those the platform sets included).
 */
const JSON_AS_TEXT: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    (oid === JSONB_OID || oid === JSON_OID) && format !== 'binary' ? asText : pgTypes.getTypeParser(oid, format ?? 'text')) as CustomTypesConfig['getTypeParser'],
};
