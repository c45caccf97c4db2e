import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `stats.rollup_day` (every dimension per local day) is no longer kept (docs/decisions/0088): no report reads it since
 * the day-per-stream, day-per-country and month rollups took its reads (0028, 0070), and writing it cost 0.4-0.5 row
 * writes per event. Emptied here, not dropped: replicas of the previous version still add to it during a rolling
 * update (a migration stays compatible with them: docs/decisions/0030), so the DROP belongs to a later release's
 * migration. Down: filled again from the message states, as the rollup consumer would have kept it.
 */
export class RollupDayUnkept1796500000008 implements MigrationInterface {
  name = 'RollupDayUnkept1796500000008';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`TRUNCATE stats.rollup_day`);
    await q.query(`COMMENT ON TABLE stats.rollup_day IS 'no longer kept or read (docs/decisions/0088); to be dropped by a later release'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`COMMENT ON TABLE stats.rollup_day IS NULL`);
    await q.query(`LOCK TABLE stats.message_state IN EXCLUSIVE MODE`);
    await q.query(`TRUNCATE stats.rollup_day`);
    await q.query(`INSERT INTO stats.rollup_day (account_id, bucket, stream_id, sender, iso2, status, currency, messages, parts, cost_micros)
                   SELECT account_id, day_bucket, coalesce(stream_id, 0), sender, iso2, status, currency, count(*), sum(segments), sum(price_micros - refunded_micros)
                     FROM stats.message_state WHERE accepted_at IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6, 7`);
  }
}
