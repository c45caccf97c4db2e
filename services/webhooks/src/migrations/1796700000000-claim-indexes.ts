import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The claim walks the webhooks with pending work by a skip scan over a narrow index of the claimable rows (pending and
 * not waiting to be gathered into a bulk batch), and counts a webhook's in-flight rows over an index of the in-flight
 * rows only (also where expired leases are found). Replaces the two indexes the old claim used.
 * docs/decisions/0027-webhooks.md, "Throughput".
 */
export class ClaimIndexes1796700000000 implements MigrationInterface {
  name = 'ClaimIndexes1796700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX delivery_claim_idx ON webhooks.delivery (webhook_id, next_attempt_at, id) WHERE state = 'pending' AND NOT bulk`);
    await q.query(`CREATE INDEX delivery_inflight_idx ON webhooks.delivery (webhook_id, lease_until) WHERE state = 'delivering'`);
    await q.query(`DROP INDEX webhooks.delivery_due_idx`);
    await q.query(`DROP INDEX webhooks.delivery_leased_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX delivery_due_idx ON webhooks.delivery (webhook_id, next_attempt_at, id) WHERE state = 'pending'`);
    await q.query(`CREATE INDEX delivery_leased_idx ON webhooks.delivery (lease_until) WHERE state = 'delivering'`);
    await q.query(`DROP INDEX webhooks.delivery_inflight_idx`);
    await q.query(`DROP INDEX webhooks.delivery_claim_idx`);
  }
}
