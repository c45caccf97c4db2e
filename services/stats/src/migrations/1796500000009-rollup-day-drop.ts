import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops `stats.rollup_day`, emptied and left unkept by 1796500000008 (docs/decisions/0088): the release before this one
 * neither writes nor reads it, so no replica of a rolling update touches it any more (expand, then contract:
 * docs/decisions/0030). Nothing reads it: the reports take the day-per-stream, day-per-country and month rollups, the
 * rebuild and the benches no longer fill it (docs/decisions/0103). Down: the table as 1796500000008 left it (empty,
 * fillfactor 70, commented); that migration's down fills it again from the message states.
 */
export class RollupDayDrop1796500000009 implements MigrationInterface {
  name = 'RollupDayDrop1796500000009';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS stats.rollup_day`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE stats.rollup_day (
        account_id bigint NOT NULL,
        bucket date NOT NULL,
        stream_id bigint NOT NULL,
        sender text NOT NULL,
        iso2 text NOT NULL,
        status text NOT NULL,
        currency text NOT NULL,
        messages bigint NOT NULL DEFAULT 0,
        parts bigint NOT NULL DEFAULT 0,
        cost_micros bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, bucket, stream_id, sender, iso2, status, currency)
      ) WITH (fillfactor = 70)`);
    await q.query(`COMMENT ON TABLE stats.rollup_day IS 'no longer kept or read (docs/decisions/0088); to be dropped by a later release'`);
  }
}
