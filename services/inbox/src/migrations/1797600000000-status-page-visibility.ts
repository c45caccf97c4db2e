import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The per-status page index carries the visibility columns (decision 0076): an agent who sees only their teams'
 * conversations gets totals per status counted up to `INBOX_TOTALS_CAP` + 1, and with `team_ids` and `agent_ids` in the
 * index those counts are index-only scans of the cap's entries (0.3 ms each at 1,000,000 conversations) instead of
 * walks over the table's rows (8–36 ms each). The index replaces the one without them, so a write keeps the same
 * number of index entries.
 */
export class StatusPageVisibility1797600000000 implements MigrationInterface {
  name = 'StatusPageVisibility1797600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS inbox.conversation_status_page_idx`);
    await q.query(`CREATE INDEX conversation_status_page_idx ON inbox.conversation (account_id, space_id, status, last_updated DESC, id DESC) INCLUDE (team_ids, agent_ids)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS inbox.conversation_status_page_idx`);
    await q.query(`CREATE INDEX conversation_status_page_idx ON inbox.conversation (account_id, space_id, status, last_updated DESC, id DESC)`);
  }
}
