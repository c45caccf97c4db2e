import type { QueryRunner } from 'typeorm';
import { quoteSchema } from '../outbox/sql';

/**
 * DDL of `<schema>.dead_letter`: the events a service gave up on, kept for operators to list and replay
 * (DeadLetterStore). One open row per group and event (a redelivered event that fails again updates its row).
 *
 * - kind `consume`: a consumer group's handler failed on the event (not for an outage: those are retried without end).
 * - kind `publish`: the outbox relay could never publish it (too large for the broker, or refused for good).
 * - status: `dead` -> `replay_requested` (an operator asked) -> `replaying` (a process took it) -> `replayed`, or
 *   back to `dead` with the new error when the replay failed too.
 */
export function deadLetterTableSql(schema: string): string {
  const s = quoteSchema(schema);
  return `
CREATE TABLE ${s}.dead_letter (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL DEFAULT 'consume' CHECK (kind IN ('consume', 'publish')),
  group_name text NOT NULL,
  topic text NOT NULL,
  event_id text NULL,
  event_type text NULL,
  account_id text NULL,
  payload text NOT NULL,
  error text NOT NULL,
  attempts integer NOT NULL,
  status text NOT NULL DEFAULT 'dead' CHECK (status IN ('dead', 'replay_requested', 'replaying', 'replayed')),
  failed_at timestamptz NOT NULL DEFAULT now(),
  replay_requested_at timestamptz NULL,
  replayed_at timestamptz NULL,
  replays integer NOT NULL DEFAULT 0
);
ALTER TABLE ${s}.dead_letter ALTER COLUMN payload SET STORAGE EXTERNAL;
CREATE UNIQUE INDEX dead_letter_open ON ${s}.dead_letter (group_name, event_id) WHERE status <> 'replayed';
CREATE INDEX dead_letter_replay ON ${s}.dead_letter (id) WHERE status IN ('replay_requested', 'replaying');
CREATE INDEX dead_letter_failed ON ${s}.dead_letter (failed_at DESC);`;
}

/** For a service migration's `up`: `await createDeadLetterTable(q, 'dispatch')`. */
export async function createDeadLetterTable(queryRunner: Pick<QueryRunner, 'query'>, schema: string): Promise<void> {
  await queryRunner.query(deadLetterTableSql(schema));
}

export async function dropDeadLetterTable(queryRunner: Pick<QueryRunner, 'query'>, schema: string): Promise<void> {
  await queryRunner.query(`DROP TABLE IF EXISTS ${quoteSchema(schema)}.dead_letter`);
}
