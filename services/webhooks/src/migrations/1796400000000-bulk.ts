import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `send_bulk`: deliveries of a bulk webhook are queued `bulk` and wait to be gathered; a gathered batch is one new
 * delivery row (its payload the JSON array of theirs, its event id the batch's), the gathered rows `batched` with a
 * pointer to it. docs/decisions/0027-webhooks.md.
 */
export class Bulk1796400000000 implements MigrationInterface {
  name = 'Bulk1796400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks.delivery ADD COLUMN bulk boolean NOT NULL DEFAULT false, ADD COLUMN batch_id uuid`);
    await q.query(`ALTER TABLE webhooks.delivery DROP CONSTRAINT delivery_state_check`);
    await q.query(`ALTER TABLE webhooks.delivery ADD CONSTRAINT delivery_state_check CHECK (state IN ('pending', 'delivering', 'succeeded', 'failed', 'batched'))`);
    await q.query(`CREATE INDEX delivery_bulk_idx ON webhooks.delivery (webhook_id, id) WHERE state = 'pending' AND bulk`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhooks.delivery_bulk_idx`);
    await q.query(`DELETE FROM webhooks.delivery WHERE state = 'batched'`);
    await q.query(`ALTER TABLE webhooks.delivery DROP CONSTRAINT delivery_state_check`);
    await q.query(`ALTER TABLE webhooks.delivery ADD CONSTRAINT delivery_state_check CHECK (state IN ('pending', 'delivering', 'succeeded', 'failed'))`);
    await q.query(`ALTER TABLE webhooks.delivery DROP COLUMN bulk, DROP COLUMN batch_id`);
  }
}
