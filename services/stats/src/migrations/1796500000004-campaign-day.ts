import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-campaign day rollups (docs/decisions/0060): `stats.rollup_campaign_day` (the campaign hour rollup's columns, the
 * bucket the account's local date) and `stats.campaign_click_day` (clicks and opt-outs per local date), so the campaign
 * list, CTR and campaigns dashboard over long ranges read one row per campaign, variant, country, status and day
 * instead of one per hour; hour rows are read only for the partial first and last day of a range. Both are filled from
 * the hour rollups, each hour bucket on its local date in the account's zone (so a day row is the sum of that date's
 * hour rows, which the reports rely on). The hour rollups get an index on (account, bucket) for those partial days
 * across every campaign of an account.
 */
export class CampaignDayRollups1796500000004 implements MigrationInterface {
  name = 'CampaignDayRollups1796500000004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE stats.rollup_campaign_day (
        account_id bigint NOT NULL,
        campaign_id bigint NOT NULL,
        bucket date NOT NULL,
        variant_id bigint NOT NULL,
        iso2 text NOT NULL,
        status text NOT NULL,
        currency text NOT NULL,
        messages bigint NOT NULL DEFAULT 0,
        parts bigint NOT NULL DEFAULT 0,
        cost_micros bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, campaign_id, bucket, variant_id, iso2, status, currency)
      )`);
    await q.query(`
      INSERT INTO stats.rollup_campaign_day (account_id, campaign_id, bucket, variant_id, iso2, status, currency, messages, parts, cost_micros)
      SELECT h.account_id, h.campaign_id, (h.bucket AT TIME ZONE coalesce(a.time_zone, 'UTC'))::date, h.variant_id, h.iso2, h.status, h.currency, sum(h.messages), sum(h.parts), sum(h.cost_micros)
        FROM stats.rollup_campaign_hour h LEFT JOIN stats.account a ON a.account_id = h.account_id
       GROUP BY 1, 2, 3, 4, 5, 6, 7`);
    await q.query(`
      CREATE TABLE stats.campaign_click_day (
        account_id bigint NOT NULL,
        campaign_id bigint NOT NULL,
        bucket date NOT NULL,
        variant_id bigint NOT NULL,
        domain_id bigint NOT NULL,
        clicks bigint NOT NULL DEFAULT 0,
        unique_clicks bigint NOT NULL DEFAULT 0,
        opted_out bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, campaign_id, bucket, variant_id, domain_id)
      )`);
    await q.query(`
      INSERT INTO stats.campaign_click_day (account_id, campaign_id, bucket, variant_id, domain_id, clicks, unique_clicks, opted_out)
      SELECT h.account_id, h.campaign_id, (h.bucket AT TIME ZONE coalesce(a.time_zone, 'UTC'))::date, h.variant_id, h.domain_id, sum(h.clicks), sum(h.unique_clicks), sum(h.opted_out)
        FROM stats.campaign_click_hour h LEFT JOIN stats.account a ON a.account_id = h.account_id
       GROUP BY 1, 2, 3, 4, 5`);
    await q.query(`CREATE INDEX rollup_campaign_hour_bucket_idx ON stats.rollup_campaign_hour (account_id, bucket)`);
    await q.query(`CREATE INDEX campaign_click_hour_bucket_idx ON stats.campaign_click_hour (account_id, bucket)`);
    await q.query(`CREATE INDEX rollup_campaign_day_bucket_idx ON stats.rollup_campaign_day (account_id, bucket)`);
    await q.query(`CREATE INDEX campaign_click_day_bucket_idx ON stats.campaign_click_day (account_id, bucket)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS stats.rollup_campaign_hour_bucket_idx, stats.campaign_click_hour_bucket_idx`);
    await q.query(`DROP TABLE IF EXISTS stats.campaign_click_day, stats.rollup_campaign_day`);
  }
}
