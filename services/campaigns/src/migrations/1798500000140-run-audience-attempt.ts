import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audience snapshot's attempt a run stores (docs/decisions/0140). Contacts publishes a `copy` snapshot's chunks as it
 * reads them, before its transaction commits, each with its attempt's number; a snapshot that broke off is answered
 * again by a later attempt with a larger number. The run keeps the chunks of its request's highest attempt only: a
 * chunk of a higher attempt first drops the recipients and claims stored before (`audience_attempt` moves up), a chunk
 * of a lower one is dropped. 0: chunks without an attempt (every chunk published with the commit). Expand-only: a
 * runner that does not know the column leaves it at 0.
 */
export class CampaignsRunAudienceAttempt1798500000140 implements MigrationInterface {
  name = 'CampaignsRunAudienceAttempt1798500000140';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.run ADD COLUMN audience_attempt bigint NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.run DROP COLUMN audience_attempt`);
  }
}
