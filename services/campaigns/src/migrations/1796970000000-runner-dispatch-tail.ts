import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A campaign finishes once dispatch has no backlog for it (docs/decisions/0066-campaign-tail-in-dispatch.md):
 * `run.left_dispatch` counts the recipients whose message left dispatch's queue (their first status from dispatch:
 * submitted, failed or dropped), next to `run.accepted` (the recipients streams accepted). Running campaigns get the
 * count of what their recipients already report, so none waits for statuses that came before this column.
 */
export class CampaignsRunnerDispatchTail1796970000000 implements MigrationInterface {
  name = 'CampaignsRunnerDispatchTail1796970000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.run ADD COLUMN left_dispatch bigint NOT NULL DEFAULT 0`);
    await q.query(`UPDATE campaigns.run r SET left_dispatch = x.n FROM (SELECT campaign_id, count(*) AS n FROM campaigns.recipient WHERE status IS NOT NULL GROUP BY campaign_id) x WHERE x.campaign_id = r.campaign_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns.run DROP COLUMN left_dispatch`);
  }
}
