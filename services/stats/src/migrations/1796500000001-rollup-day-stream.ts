import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `stats.rollup_day_stream`: the day rollup without sender and country (per account, day, stream, status, currency),
 * for the dashboard's main figures over long ranges: a year reads one row per stream and status a day instead of one
 * per sender and country too; `stats.rollup_day_country` without sender (kept per stream for the stream filter), for
 * the top destinations (docs/decisions/0028). Both filled from the day rollup for what is already there.
 */
export class RollupDayStream1796500000001 implements MigrationInterface {
  name = 'RollupDayStream1796500000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE stats.rollup_day_stream (
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
      INSERT INTO stats.rollup_day_stream (account_id, bucket, stream_id, status, currency, messages, parts, cost_micros)
      SELECT account_id, bucket, stream_id, status, currency, sum(messages), sum(parts), sum(cost_micros)
        FROM stats.rollup_day GROUP BY account_id, bucket, stream_id, status, currency`);
    // and without sender, per country: the top destinations over long ranges
    await q.query(`
      CREATE TABLE stats.rollup_day_country (
        account_id bigint NOT NULL,
        bucket date NOT NULL,
        stream_id bigint NOT NULL,
        iso2 text NOT NULL,
        status text NOT NULL,
        currency text NOT NULL,
        messages bigint NOT NULL DEFAULT 0,
        parts bigint NOT NULL DEFAULT 0,
        cost_micros bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, bucket, iso2, stream_id, status, currency)
      )`);
    await q.query(`
      INSERT INTO stats.rollup_day_country (account_id, bucket, stream_id, iso2, status, currency, messages, parts, cost_micros)
      SELECT account_id, bucket, stream_id, iso2, status, currency, sum(messages), sum(parts), sum(cost_micros)
        FROM stats.rollup_day GROUP BY account_id, bucket, stream_id, iso2, status, currency`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS stats.rollup_day_stream, stats.rollup_day_country`);
  }
}
