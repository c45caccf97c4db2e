import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Streams' answer to a send batch made heap-only (docs/decisions/0209). The answer moves a recipient from state 0
 * (in flight with its batch row, 0188) to 3 and sets its request time, its price and its choices. Every index that
 * named `state` or `requested_at` (the phone, in-flight, due and accepted indexes) made that a new row version with an
 * entry in each index. None does now:
 *
 * - `recipient_number_idx (account_id, phone)` replaces `recipient_phone_idx ... WHERE state = 3`: the entry is written
 *   with the row (the audience's COPY), never at the answer. Its one reader, a number's opt-out, still asks for
 *   `state = 3` and the request window, now from the heap.
 * - `recipient_flight_idx (campaign_id, flight_at) WHERE flight_at IS NOT NULL` replaces `recipient_in_flight_idx ...
 *   WHERE state IN (1, 2)`: `flight_at` is the request time of a recipient at state 1 (links) or 2 (an unbatched
 *   request), written by the statements that move it into those states and cleared by those that move it out. A
 *   recipient of a batch row is at state 0 without it before and at state 3 without it after.
 * - `recipient_due_idx (campaign_id, due_at, ordinal) WHERE due_at IS NOT NULL` (was `... AND state = 0`): every
 *   reader still asks for `state = 0`; a recipient sent from a batch has no due time before nor after its answer.
 * - `recipient_accepted_idx` goes. The status sweep reads `campaigns.status_due` instead: one row a group of accepted
 *   recipients (an answer's, with its request time), inserted by the answer in its transaction, moved to its question
 *   time by the sweep that asks about them and deleted once all of them have a final status.
 *
 * Existing rows: recipients at state 1 or 2 get their `flight_at`; accepted recipients without a final status get
 * their `status_due` rows (by campaign and `coalesce(status_asked_at, requested_at)`, read through the old index before
 * it goes). Every campaigns process must be stopped for this migration: an older runner would move recipients to state
 * 1 or 2 without `flight_at`, and an older answer would accept recipients without a `status_due` row. No table is
 * rewritten; the new phone index is built from one scan of the table inside the migration's transaction.
 */
export class CampaignsRecipientAnswerHot1798900000209 implements MigrationInterface {
  name = 'CampaignsRecipientAnswerHot1798900000209';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.recipient ADD COLUMN flight_at timestamptz`);
    await q.query(`UPDATE campaigns.recipient SET flight_at = requested_at WHERE state IN (1, 2)`);
    await q.query(`CREATE INDEX recipient_flight_idx ON campaigns.recipient (campaign_id, flight_at) WHERE flight_at IS NOT NULL`);
    await q.query(`DROP INDEX campaigns.recipient_in_flight_idx`);
    await q.query(`DROP INDEX campaigns.recipient_due_idx`);
    await q.query(`CREATE INDEX recipient_due_idx ON campaigns.recipient (campaign_id, due_at, ordinal) WHERE due_at IS NOT NULL`);
    await q.query(`CREATE INDEX recipient_number_idx ON campaigns.recipient (account_id, phone)`);
    await q.query(`DROP INDEX campaigns.recipient_phone_idx`);
    await q.query(`CREATE TABLE campaigns.status_due (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      campaign_id bigint NOT NULL,
      account_id bigint NOT NULL,
      due_at timestamptz NOT NULL,
      ordinals int[] NOT NULL
    )`);
    await q.query(`CREATE INDEX status_due_at_idx ON campaigns.status_due (due_at, id)`);
    await q.query(`CREATE INDEX status_due_campaign_idx ON campaigns.status_due (campaign_id)`);
    await q.query(
      `INSERT INTO campaigns.status_due (campaign_id, account_id, due_at, ordinals)
       SELECT campaign_id, min(account_id), coalesce(status_asked_at, requested_at), array_agg(ordinal ORDER BY ordinal) FROM campaigns.recipient
        WHERE state = 3 AND (status IS NULL OR status = 'sent') AND coalesce(status_asked_at, requested_at) IS NOT NULL
        GROUP BY campaign_id, coalesce(status_asked_at, requested_at)`,
    );
    await q.query(`DROP INDEX campaigns.recipient_accepted_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    // 0207's sweep reads from each run's floor: from the oldest group still due, or everything
    await q.query(`CREATE INDEX recipient_accepted_idx ON campaigns.recipient (campaign_id, (coalesce(status_asked_at, requested_at))) WHERE state = 3`);
    await q.query(
      `UPDATE campaigns.run r SET status_floor = least(r.status_floor, x.due) FROM (SELECT campaign_id, min(due_at) AS due FROM campaigns.status_due GROUP BY campaign_id) x WHERE x.campaign_id = r.campaign_id`,
    );
    await q.query(`DROP TABLE campaigns.status_due`);
    await q.query(`CREATE INDEX recipient_phone_idx ON campaigns.recipient (account_id, phone) WHERE state = 3`);
    await q.query(`DROP INDEX campaigns.recipient_number_idx`);
    await q.query(`DROP INDEX campaigns.recipient_due_idx`);
    await q.query(`CREATE INDEX recipient_due_idx ON campaigns.recipient (campaign_id, due_at, ordinal) WHERE state = 0 AND due_at IS NOT NULL`);
    await q.query(`CREATE INDEX recipient_in_flight_idx ON campaigns.recipient (campaign_id, requested_at) WHERE state IN (1, 2)`);
    await q.query(`DROP INDEX campaigns.recipient_flight_idx`);
    await q.query(`ALTER TABLE campaigns.recipient DROP COLUMN flight_at`);
  }
}
