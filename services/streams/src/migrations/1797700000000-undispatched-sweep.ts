import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sweeper of messages streams accepted that dispatch may never have got (docs/decisions/0087): `reconciled_at`,
 * when streams last asked dispatch about the message, and a partial index of the messages still `accepted`, by when
 * they are next due (acceptance, or the last question), so a sweep reads only the due ones in order.
 */
export class UndispatchedSweep1797700000000 implements MigrationInterface {
  name = 'UndispatchedSweep1797700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE streams.message ADD COLUMN reconciled_at timestamptz`);
    await q.query(`CREATE INDEX message_undispatched_idx ON streams.message ((coalesce(reconciled_at, created_at))) WHERE status = 'accepted'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX streams.message_undispatched_idx`);
    await q.query(`ALTER TABLE streams.message DROP COLUMN reconciled_at`);
  }
}
