import type { MigrationInterface, QueryRunner } from 'typeorm';

/** What streams charged for an inbox send (the cost reports), and the reports' scan by time. */
export class EventCost1796800000000 implements MigrationInterface {
  name = 'EventCost1796800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE inbox.event ADD COLUMN price_micros bigint, ADD COLUMN currency text`);
    await q.query(`CREATE INDEX conversation_space_start_idx ON inbox.conversation (account_id, space_id, start_time)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX inbox.conversation_space_start_idx`);
    await q.query(`ALTER TABLE inbox.event DROP COLUMN price_micros, DROP COLUMN currency`);
  }
}
