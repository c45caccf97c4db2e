import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Frozen with this migration (the code's list is services/stats/src/rollup-shape.ts). */
const N = ['n_accepted', 'n_sent', 'n_delivered', 'n_sent_failed', 'n_undelivered', 'n_no_routes', 'n_rejected'];

/** The per-stream count rollups and the per-country ones whose sums over the countries they are. */
const UNKEPT = [
  { table: 'rollup_counts_day_stream', from: 'rollup_counts_day_country' },
  { table: 'rollup_counts_month_stream', from: 'rollup_counts_month_country' },
];

/**
 * `stats.rollup_counts_day_stream` and `stats.rollup_counts_month_stream` are no longer written or read
 * (docs/decisions/0175): their key is the day-per-country and month-per-country rollups' without the country, so the
 * reports sum those over iso2, and the rollup consumer writes two rows fewer per message. Not emptied here: replicas of
 * the previous release read them during a rolling update (their per-stream figures; docs/decisions/0030, expand then
 * contract), so the DROP belongs to a later release's migration. The status-keyed tables' mirror into them (0132) stays
 * until that release too.
 *
 * Down: both filled again from the country rollups (the same sums, exactly), under the states' lock (every rollup write
 * also writes `message_state` in the same statement, so the consumers wait and the country rows are settled).
 */
export class RollupStreamUnkept1796500000011 implements MigrationInterface {
  name = 'RollupStreamUnkept1796500000011';

  async up(q: QueryRunner): Promise<void> {
    for (const t of UNKEPT) {
      await q.query(`COMMENT ON TABLE stats.${t.table} IS 'no longer written or read (docs/decisions/0175): the sums of stats.${t.from} over iso2; to be dropped by a later release'`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`LOCK TABLE stats.message_state IN EXCLUSIVE MODE`);
    const cols = ['messages', 'parts', 'cost_micros', ...N];
    for (const t of UNKEPT) {
      await q.query(`TRUNCATE stats.${t.table}`);
      await q.query(`
        INSERT INTO stats.${t.table} (account_id, bucket, stream_id, currency, ${cols.join(', ')})
        SELECT account_id, bucket, stream_id, currency, ${cols.map((c) => `sum(${c})`).join(', ')} FROM stats.${t.from}
         GROUP BY account_id, bucket, stream_id, currency ORDER BY account_id, bucket, stream_id, currency`);
      await q.query(`COMMENT ON TABLE stats.${t.table} IS NULL`);
    }
  }
}
