import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An aborted campaign's messages still in dispatch are dropped with a final status (docs/decisions/0066): the hold
 * remembers that its campaign was aborted, not only held, so any replica drops what is held of it (also what an
 * adapter gave back after the abort).
 */
export class CampaignAborts1796970000000 implements MigrationInterface {
  name = 'CampaignAborts1796970000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.campaign_hold ADD COLUMN aborted boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dispatch.campaign_hold DROP COLUMN aborted`);
  }
}
