import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The CTR rules' mark (docs/decisions/0032-campaign-runner.md): the sample size at the last CTR halt, so a play needs a fresh sample. */
export class CampaignsRunnerCtr1796695000000 implements MigrationInterface {
  name = 'CampaignsRunnerCtr1796695000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.run ADD COLUMN ctr_mark bigint NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.run DROP COLUMN ctr_mark`);
  }
}
