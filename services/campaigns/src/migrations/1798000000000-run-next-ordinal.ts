import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The runner's step reads its next recipients by key (docs/decisions/0116):
 * - `run.next_ordinal`: every recipient at or after it has never been looked at by the runner (waiting, no due time),
 *   so the step reads the next fresh recipients as `ordinal >= next_ordinal` on the primary key, and "any fresh one
 *   left" is one probe of it. It moves forward in the step's transaction, past the recipients the step handled.
 * - `recipient_due_idx`: every recipient behind it that waits again (its window closed, a stale or refused request
 *   sent back, links minted) carries a due time, and this partial index holds only those, by due time: the step reads
 *   the due ones (`due_at <= now`) and never the ones still waiting for their hours.
 * Runs in progress get the cursor past every recipient the runner has touched, and their waiting recipients behind it
 * a due time of now (read once here, a scan of the table).
 */
export class CampaignsRunNextOrdinal1798000000000 implements MigrationInterface {
  name = 'CampaignsRunNextOrdinal1798000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.run ADD COLUMN next_ordinal integer NOT NULL DEFAULT 0`);
    await q.query(`
      UPDATE campaigns.run r SET next_ordinal = x.n
        FROM (SELECT campaign_id, max(ordinal) + 1 AS n FROM campaigns.recipient
               WHERE state <> 0 OR due_at IS NOT NULL OR requested_at IS NOT NULL OR batch_id IS NOT NULL GROUP BY campaign_id) x
       WHERE x.campaign_id = r.campaign_id`);
    await q.query(`
      UPDATE campaigns.recipient rc SET due_at = now() FROM campaigns.run r
       WHERE rc.campaign_id = r.campaign_id AND rc.ordinal < r.next_ordinal AND rc.state = 0 AND rc.due_at IS NULL`);
    await q.query(`CREATE INDEX recipient_due_idx ON campaigns.recipient (campaign_id, due_at, ordinal) WHERE state = 0 AND due_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX campaigns.recipient_due_idx`);
    await q.query(`ALTER TABLE campaigns.run DROP COLUMN next_ordinal`);
  }
}
