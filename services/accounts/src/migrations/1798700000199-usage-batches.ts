import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The daily usage's claims of accepted batches (docs/decisions/0199): one row a `streams.messages.accepted` batch (per
 * distinct acceptance instant of its items; in practice one), instead of a `processed_events` row per message. The
 * batch's message uuids are kept with it (one array, out of line) for the one reader that needs them: the undispatched
 * sweeper's re-publish of a message, counted only when no claimed batch of its account and acceptance instant holds it.
 * Rows older than the claims' retention are pruned (`counted_at`).
 */
export class UsageBatches1798700000199 implements MigrationInterface {
  name = 'UsageBatches1798700000199';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE accounts.usage_batch (
      batch_id uuid NOT NULL,
      accepted_at timestamptz NOT NULL,
      account_id bigint NOT NULL,
      message_uuids uuid[] NOT NULL,
      counted_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (batch_id, accepted_at))`);
    await q.query(`CREATE INDEX usage_batch_account_at_idx ON accounts.usage_batch (account_id, accepted_at)`);
    await q.query(`CREATE INDEX usage_batch_counted_at_idx ON accounts.usage_batch (counted_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS accounts.usage_batch`);
  }
}
