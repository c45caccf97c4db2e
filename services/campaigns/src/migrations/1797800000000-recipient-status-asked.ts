import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Campaigns asks dispatch for the statuses it lost (docs/decisions/0093): `status_asked_at` is when a recipient's
 * status was last asked for, and a partial index holds only the recipients accepted by streams whose status is not
 * final yet (none, or `sent`), by the time they are due, so the sweep reads only due rows, oldest first. A final
 * status moves the row out of the index.
 */
export class CampaignsRecipientStatusAsked1797800000000 implements MigrationInterface {
  name = 'CampaignsRecipientStatusAsked1797800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.recipient ADD COLUMN status_asked_at timestamptz`);
    await q.query(`CREATE INDEX recipient_status_due_idx ON campaigns.recipient ((coalesce(status_asked_at, requested_at))) WHERE state = 3 AND (status IS NULL OR status = 'sent')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX campaigns.recipient_status_due_idx`);
    await q.query(`ALTER TABLE campaigns.recipient DROP COLUMN status_asked_at`);
  }
}
