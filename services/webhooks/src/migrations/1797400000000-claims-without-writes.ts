import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delivery row is written twice: queued, and its outcome (docs/decisions/0059). Which process sends it is decided by
 * the session advisory lock of its webhook's bucket, not by writing a lease into the row, so the `delivering` state,
 * its lease and the index over in-flight rows go. A row an older worker left `delivering` (its attempt was started,
 * its outcome never written) is pending again with that attempt not counted: it is sent again under the same id.
 */
export class ClaimsWithoutWrites1797400000000 implements MigrationInterface {
  name = 'ClaimsWithoutWrites1797400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE webhooks.delivery SET state = 'pending', attempts = greatest(attempts - 1, 0) WHERE state = 'delivering'`);
    await q.query(`DROP INDEX webhooks.delivery_inflight_idx`);
    await q.query(`ALTER TABLE webhooks.delivery DROP COLUMN lease_until`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks.delivery ADD COLUMN lease_until timestamptz`);
    await q.query(`CREATE INDEX delivery_inflight_idx ON webhooks.delivery (webhook_id, lease_until) WHERE state = 'delivering'`);
  }
}
