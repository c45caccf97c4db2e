import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The message rollups and the campaign rollups the rollup consumer adds to (docs/decisions/0083). */
const ROLLUPS = [
  'rollup_hour',
  'rollup_day',
  'rollup_day_stream',
  'rollup_day_country',
  'rollup_month_stream',
  'rollup_month_country',
  'rollup_campaign_hour',
  'rollup_campaign_day',
  'rollup_campaign_day_total',
  'rollup_campaign_month',
];

/**
 * Room on each page for the rows the rollup consumer updates (docs/decisions/0083): a message's state is updated a few
 * times within seconds of its insert (accepted, sent, final), and each status move subtracts from one rollup row and
 * adds to another. With full pages (fillfactor 100) only 5-25 % of the updates of `message_state`, `rollup_hour` and
 * `rollup_day` stayed on their page (heap-only), so nearly every update also inserted an entry into the wide primary key.
 * Pages written from now on keep the room; existing rows move as they are updated.
 */
export class RollupFillfactor1796500000007 implements MigrationInterface {
  name = 'RollupFillfactor1796500000007';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE stats.message_state SET (fillfactor = 80)`);
    for (const t of ROLLUPS) await q.query(`ALTER TABLE stats.${t} SET (fillfactor = 70)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ROLLUPS) await q.query(`ALTER TABLE stats.${t} RESET (fillfactor)`);
    await q.query(`ALTER TABLE stats.message_state RESET (fillfactor)`);
  }
}
