import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * dispatch.message's two updates on a carrier's real path (submitted on the submit_sm_resp, final on the receipt that
 * comes seconds later) made heap-only (HOT) too (docs/decisions/0212). 0206 made the merged one (submitting → done)
 * HOT, but its generated columns `wait_state` (`submitted` included) and `awaiting_since` change on both of these, and
 * the queue, hold and receipt-wait indexes name them.
 *
 * - `queue_state`: a plain column, `send_state` while `queued` or `held`, else null, written by every statement that
 *   sets `send_state`; a CHECK constraint (`message_queue_state`) makes any statement that forgets it fail. The queue
 *   and hold indexes are keyed on it. Submitting, submitted and done leave it null, so no update among them changes
 *   an indexed column.
 * - `dispatch.message_awaiting`: one narrow row per message `submitted` (vendor, `sent_at`), written in the statement
 *   that marks it sent and removed in the one that makes it final; the receipt-wait readers (overdue list, query_sm,
 *   expiry) read it, joined to messages still `submitted`.
 * - `wait_state` and `awaiting_since` are dropped. No table rewrite: adding a nullable column without a default and
 *   dropping columns are catalogue changes; the backfill touches only queued, held and submitted rows (found by the
 *   old indexes); the new indexes and the constraint's validation read the table once each. The migration runs in one
 *   transaction, so the exclusive lock its first ALTER takes holds until the end: the table is unavailable for the
 *   length of those reads, not of a rewrite.
 *
 * Upgrade (README): stop every dispatch process for the migration and start only this release (an older dispatcher
 * reads `wait_state` and writes neither `queue_state` nor awaiting rows).
 */
export class MessageAwaitingReceipt1798800000212 implements MigrationInterface {
  name = 'MessageAwaitingReceipt1798800000212';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.message ADD COLUMN queue_state text`);
    await q.query(`UPDATE dispatch.message SET queue_state = wait_state WHERE wait_state IN ('queued', 'held')`);
    await q.query(`
      CREATE TABLE dispatch.message_awaiting (
        message_id bigint PRIMARY KEY,
        vendor_id bigint NULL,
        sent_at timestamptz NOT NULL
      )`);
    await q.query(`INSERT INTO dispatch.message_awaiting (message_id, vendor_id, sent_at) SELECT id, vendor_id, awaiting_since FROM dispatch.message WHERE awaiting_since IS NOT NULL`);
    await q.query(`CREATE INDEX message_awaiting_sent ON dispatch.message_awaiting (sent_at, message_id)`);
    await q.query(`DROP INDEX dispatch.message_queued, dispatch.message_held, dispatch.message_awaiting_receipt`);
    await q.query(`ALTER TABLE dispatch.message DROP COLUMN wait_state, DROP COLUMN awaiting_since`);
    await q.query(`CREATE INDEX message_queued ON dispatch.message (next_attempt_at, id) WHERE queue_state = 'queued'`);
    await q.query(`CREATE INDEX message_held ON dispatch.message (campaign_id) WHERE queue_state = 'held'`);
    await q.query(
      `ALTER TABLE dispatch.message ADD CONSTRAINT message_queue_state CHECK (queue_state IS NOT DISTINCT FROM (CASE WHEN send_state IN ('queued', 'held') THEN send_state END)) NOT VALID`,
    );
    await q.query(`ALTER TABLE dispatch.message VALIDATE CONSTRAINT message_queue_state`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.message DROP CONSTRAINT message_queue_state`);
    await q.query(`DROP INDEX dispatch.message_queued, dispatch.message_held`);
    await q.query(`
      ALTER TABLE dispatch.message
        ADD COLUMN wait_state text GENERATED ALWAYS AS (CASE WHEN send_state IN ('queued', 'held', 'submitted') THEN send_state END) STORED,
        ADD COLUMN awaiting_since timestamptz GENERATED ALWAYS AS (CASE WHEN send_state = 'submitted' THEN sent_at END) STORED`);
    await q.query(`ALTER TABLE dispatch.message DROP COLUMN queue_state`);
    await q.query(`DROP TABLE dispatch.message_awaiting`);
    await q.query(`CREATE INDEX message_queued ON dispatch.message (next_attempt_at, id) WHERE wait_state = 'queued'`);
    await q.query(`CREATE INDEX message_held ON dispatch.message (campaign_id) WHERE wait_state = 'held'`);
    await q.query(`CREATE INDEX message_awaiting_receipt ON dispatch.message (awaiting_since) WHERE awaiting_since IS NOT NULL`);
  }
}
