import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Month rollups (docs/decisions/0070): `stats.rollup_month_stream` (the day-per-stream rollup's columns, the bucket the
 * first day of the account's local month) and `stats.rollup_month_country` (the day-per-country rollup's), so the main
 * figures, the top destinations and the stream statistics over a year read one row per month instead of one per day;
 * day rows are read only for the partial first and last month of a range, hour rows only for its partial first and
 * last day. Both filled from the day rollups (a day bucket is a local date, so its month is the local month).
 */
export class MonthRollups1796500000005 implements MigrationInterface {
  name = 'MonthRollups1796500000005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE stats.rollup_month_stream (
        account_id bigint NOT NULL,
        bucket date NOT NULL,
        stream_id bigint NOT NULL,
        status text NOT NULL,
        currency text NOT NULL,
        messages bigint NOT NULL DEFAULT 0,
        parts bigint NOT NULL DEFAULT 0,
        cost_micros bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, bucket, stream_id, status, currency)
      )`);
    await q.query(`
      INSERT INTO stats.rollup_month_stream (account_id, bucket, stream_id, status, currency, messages, parts, cost_micros)
      SELECT account_id, date_trunc('month', bucket)::date, stream_id, status, currency, sum(messages), sum(parts), sum(cost_micros)
        FROM stats.rollup_day_stream GROUP BY 1, 2, 3, 4, 5`);
    await q.query(`
      CREATE TABLE stats.rollup_month_country (
        account_id bigint NOT NULL,
        bucket date NOT NULL,
        iso2 text NOT NULL,
        stream_id bigint NOT NULL,
        status text NOT NULL,
        currency text NOT NULL,
        messages bigint NOT NULL DEFAULT 0,
        parts bigint NOT NULL DEFAULT 0,
        cost_micros bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, bucket, iso2, stream_id, status, currency)
      )`);
    await q.query(`
      INSERT INTO stats.rollup_month_country (account_id, bucket, iso2, stream_id, status, currency, messages, parts, cost_micros)
      SELECT account_id, date_trunc('month', bucket)::date, iso2, stream_id, status, currency, sum(messages), sum(parts), sum(cost_micros)
        FROM stats.rollup_day_country GROUP BY 1, 2, 3, 4, 5, 6`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS stats.rollup_month_stream, stats.rollup_month_country`);
  }
}
