import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-campaign totals by local day and month (docs/decisions/0077): `stats.rollup_campaign_day_total` and
 * `stats.rollup_campaign_month` have the campaign day rollup's figures without its variant and country (per account,
 * campaign, status, currency and bucket: the local date, or the first day of the local month), so the calls across
 * campaigns (the list, CTR, the campaigns dashboard and its series) over a year read one row per campaign, status and
 * month (or day) instead of one per variant, country, status and day. Both filled from the campaign day rollup (a day
 * bucket is a local date, so its month is the local month).
 */
export class CampaignMonthRollups1796500000006 implements MigrationInterface {
  name = 'CampaignMonthRollups1796500000006';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, bucket] of [
      ['rollup_campaign_day_total', 'bucket'],
      ['rollup_campaign_month', `date_trunc('month', bucket)::date`],
    ] as const) {
      await q.query(`
        CREATE TABLE stats.${table} (
          account_id bigint NOT NULL,
          campaign_id bigint NOT NULL,
          bucket date NOT NULL,
          status text NOT NULL,
          currency text NOT NULL,
          messages bigint NOT NULL DEFAULT 0,
          parts bigint NOT NULL DEFAULT 0,
          cost_micros bigint NOT NULL DEFAULT 0,
          PRIMARY KEY (account_id, campaign_id, bucket, status, currency)
        )`);
      await q.query(`
        INSERT INTO stats.${table} (account_id, campaign_id, bucket, status, currency, messages, parts, cost_micros)
        SELECT account_id, campaign_id, ${bucket}, status, currency, sum(messages), sum(parts), sum(cost_micros)
          FROM stats.rollup_campaign_day GROUP BY 1, 2, 3, 4, 5`);
      // every campaign of an account over a range: the bucket first, the rest of the row in the index (index-only)
      await q.query(`CREATE INDEX ${table}_bucket_idx ON stats.${table} (account_id, bucket) INCLUDE (campaign_id, status, currency, messages, parts, cost_micros)`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS stats.rollup_campaign_day_total, stats.rollup_campaign_month`);
  }
}
