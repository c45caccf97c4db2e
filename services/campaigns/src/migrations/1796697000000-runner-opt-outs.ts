import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A recipient who opted out after a campaign's message (docs/decisions/0032-campaign-runner.md): counted once, found by the account and number. */
export class CampaignsRunnerOptOuts1796697000000 implements MigrationInterface {
  name = 'CampaignsRunnerOptOuts1796697000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.recipient ADD COLUMN opted_out boolean NOT NULL DEFAULT false`);
    await q.query(`CREATE INDEX recipient_phone_idx ON campaigns.recipient (account_id, phone)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX campaigns.recipient_phone_idx`);
    await q.query(`ALTER TABLE campaigns.recipient DROP COLUMN opted_out`);
  }
}
