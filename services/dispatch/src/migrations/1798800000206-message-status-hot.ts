import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * dispatch.message's status updates made heap-only (HOT) (docs/decisions/0206). The four partial indexes named
 * `send_state` (and `claimed_by`, `sent_at`) in their key or predicate, so no update that moved a message on (the write
 * lane's `markSentFinal`, submitting → done) could be HOT: each wrote a new version on another page and a new entry
 * into every index.
 *
 * - `wait_state` (stored, generated): `send_state` while it is `queued`, `held` or `submitted`, else null; and
 *   `awaiting_since`: `sent_at` while `submitted`. The queue, hold and receipt-wait indexes are keyed and filtered on
 *   them instead of `send_state` and `sent_at`: they list exactly the rows they listed before, and an update that
 *   neither enters nor leaves those states (submitting → done, the campaign path) changes no indexed column.
 * - `dispatch.message_claim`: one narrow row per message `submitting` (written in the same statement that claims it,
 *   removed in the one that moves it on), read by the crash recovery and the stuck sweep instead of the
 *   `message_submitting` index. A claim row may outlive its claim (a receipt finalizing a claimed message; a `done`
 *   message's row is removed by the stuck sweep), never the other way round: readers check `send_state` in the message.
 * - `fillfactor = 50` for pages written from now on (a message is updated once or twice, a write batch at a time): room on the page for its new
 *   version.
 *
 * Upgrade (README): adding the generated columns rewrites dispatch.message under an exclusive lock; stop every
 * dispatch process for the migration and start only this release (an older dispatcher neither writes claim rows nor
 * finds its queue without `message_queued` on `send_state`).
 */
export class MessageStatusHot1798800000206 implements MigrationInterface {
  name = 'MessageStatusHot1798800000206';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE dispatch.message
        ADD COLUMN wait_state text GENERATED ALWAYS AS (CASE WHEN send_state IN ('queued', 'held', 'submitted') THEN send_state END) STORED,
        ADD COLUMN awaiting_since timestamptz GENERATED ALWAYS AS (CASE WHEN send_state = 'submitted' THEN sent_at END) STORED`);
    await q.query(`
      CREATE TABLE dispatch.message_claim (
        message_id bigint PRIMARY KEY,
        claimed_by uuid NULL
      )`);
    await q.query(`INSERT INTO dispatch.message_claim (message_id, claimed_by) SELECT id, claimed_by FROM dispatch.message WHERE send_state = 'submitting'`);
    await q.query(`DROP INDEX dispatch.message_queued, dispatch.message_submitting, dispatch.message_awaiting_receipt, dispatch.message_held`);
    await q.query(`CREATE INDEX message_queued ON dispatch.message (next_attempt_at, id) WHERE wait_state = 'queued'`);
    await q.query(`CREATE INDEX message_held ON dispatch.message (campaign_id) WHERE wait_state = 'held'`);
    await q.query(`CREATE INDEX message_awaiting_receipt ON dispatch.message (awaiting_since) WHERE awaiting_since IS NOT NULL`);
    await q.query(`ALTER TABLE dispatch.message SET (fillfactor = 50)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.message RESET (fillfactor)`);
    await q.query(`DROP INDEX dispatch.message_queued, dispatch.message_held, dispatch.message_awaiting_receipt`);
    await q.query(`DROP TABLE dispatch.message_claim`);
    await q.query(`ALTER TABLE dispatch.message DROP COLUMN wait_state, DROP COLUMN awaiting_since`);
    await q.query(`CREATE INDEX message_queued ON dispatch.message (next_attempt_at, id) WHERE send_state = 'queued'`);
    await q.query(`CREATE INDEX message_submitting ON dispatch.message (claimed_by) WHERE send_state = 'submitting'`);
    await q.query(`CREATE INDEX message_awaiting_receipt ON dispatch.message (sent_at) WHERE send_state = 'submitted'`);
    await q.query(`CREATE INDEX message_held ON dispatch.message (campaign_id) WHERE send_state = 'held'`);
  }
}
