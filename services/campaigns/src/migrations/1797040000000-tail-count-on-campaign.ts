import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The send path's counters leave the run row (docs/decisions/0074). The runner takes its lease on `campaigns.run`
 * every step; streams' answers (`run.accepted`) and the status group commit (`run.left_dispatch`) updated the same
 * row, so every step waited for the answer or status transaction in flight. The recipients streams accepted are the
 * campaign's `created` (both always moved together), and the recipients whose message left dispatch move to
 * `campaign.left_dispatch`, in the campaign row those two writers already update.
 */
export class CampaignsTailCountOnCampaign1797040000000 implements MigrationInterface {
  name = 'CampaignsTailCountOnCampaign1797040000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.campaign ADD COLUMN left_dispatch bigint NOT NULL DEFAULT 0`);
    await q.query(`UPDATE campaigns.campaign c SET left_dispatch = r.left_dispatch FROM campaigns.run r WHERE r.campaign_id = c.id AND r.left_dispatch <> 0`);
    await q.query(`ALTER TABLE campaigns.run DROP COLUMN left_dispatch, DROP COLUMN accepted`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.run ADD COLUMN accepted bigint NOT NULL DEFAULT 0, ADD COLUMN left_dispatch bigint NOT NULL DEFAULT 0`);
    await q.query(`UPDATE campaigns.run r SET accepted = c.created, left_dispatch = c.left_dispatch FROM campaigns.campaign c WHERE c.id = r.campaign_id`);
    await q.query(`ALTER TABLE campaigns.campaign DROP COLUMN left_dispatch`);
  }
}
