// The prototype migration's carry-over, checked (docs/decisions/0131): the stats schema migrated to 1796500000009,
// 3,000 random message states of two accounts (+05:30 and -03:00) with every status, rolled up by main's rebuild into
// the status-keyed rollups; then 1796500000010 up: every message rollup must equal its recomputation from the states
// (sums and each status's count, by key); then down: the status-keyed rollups must equal main's rebuild again.
// Run with the patch applied and built: node docs/decisions/patches/0131-migration-carry-over-check.js
require('reflect-metadata');
const { benchDatabase } = require('../../../dist/bench/bench-database.js');
const { openServiceDataSource } = require('../../../dist/libs/platform/src');
const { STATS_MIGRATIONS, rebuildRollups } = require('../../../dist/services/stats/src');
const ST = ['accepted', 'sent', 'delivered', 'sent_failed', 'undelivered', 'no_routes', 'rejected'];
const TABLES = [
  ['rollup_hour', 'hour_bucket', 'sender, iso2'],
  ['rollup_day_stream', 'day_bucket', null],
  ['rollup_day_country', 'day_bucket', 'iso2'],
  ['rollup_month_stream', "date_trunc('month', day_bucket)::date", null],
  ['rollup_month_country', "date_trunc('month', day_bucket)::date", 'iso2'],
];
const recomputed = (bucket, key, withStatus) => `SELECT account_id, ${bucket} AS bucket, coalesce(stream_id, 0) AS stream_id, ${key ? `${key}, ` : ''}${withStatus ? 'status, ' : ''}currency,
  count(*)::bigint AS messages, sum(segments)::bigint AS parts, sum(price_micros - refunded_micros)::bigint AS cost_micros
  ${withStatus ? '' : `, ${ST.map((s) => `count(*) FILTER (WHERE status = '${s}')::bigint`).join(', ')}`}
  FROM stats.message_state WHERE accepted_at IS NOT NULL GROUP BY 1, 2, 3, ${key ? `${key}, ` : ''}${withStatus ? 'status, ' : ''}currency`;
async function differing(ds, withStatus) {
  const out = {};
  for (const [table, bucket, key] of TABLES) {
    const cols = `account_id, bucket, stream_id, ${key ? `${key}, ` : ''}${withStatus ? 'status, ' : ''}currency, messages, parts, cost_micros${withStatus ? '' : `, ${ST.map((s) => `n_${s}`).join(', ')}`}`;
    const [{ bad, rows }] = await ds.query(`WITH r AS (${recomputed(bucket, key, withStatus)}), t AS (SELECT ${cols} FROM stats.${table} WHERE messages <> 0 OR parts <> 0 OR cost_micros <> 0${withStatus ? '' : ` OR ${ST.map((s) => `n_${s} <> 0`).join(' OR ')}`})
      SELECT (SELECT count(*) FROM ((SELECT * FROM t EXCEPT SELECT * FROM r) UNION ALL (SELECT * FROM r EXCEPT SELECT * FROM t)) x)::int AS bad, (SELECT count(*) FROM t)::int AS rows`);
    out[table] = `${rows} rows, ${bad} differ`;
    if (bad !== 0) throw new Error(`${table}: ${bad} rows differ (${withStatus ? 'status-keyed' : 'count columns'})`);
  }
  return out;
}
(async () => {
  const db = await benchDatabase('stats-carry-');
  const open = (migrations) => openServiceDataSource({ name: `carry${migrations.length}`, url: db.url, schema: 'stats', entities: [], migrations, migrationsRun: true, logging: false });
  const before = STATS_MIGRATIONS.filter((m) => m.name !== 'RollupStatusColumns1796500000010');
  if (before.length !== STATS_MIGRATIONS.length - 1) throw new Error('the patch is not applied');
  let ds = await open(before);
  await ds.query(`INSERT INTO stats.account (account_id, time_zone) VALUES (1, 'Asia/Kolkata'), (2, 'America/Sao_Paulo')`);
  await ds.query(`SELECT setseed(0.131)`);
  await ds.query(`INSERT INTO stats.message_state (message_uuid, account_id, stream_id, sender, iso2, status, rank, accepted_at, segments, price_micros, refunded_micros, currency)
    SELECT gen_random_uuid(), 1 + (random() * 1)::int, 1 + (random() * 3)::int, 'S' || (random() * 2)::int, (ARRAY['DE','IN','BR'])[1 + (random() * 2)::int],
           (ARRAY['accepted','sent','delivered','sent_failed','undelivered','no_routes','rejected'])[1 + (random() * 6)::int], 0,
           CASE WHEN random() < 0.95 THEN now() - random() * interval '400 days' END, 1 + (random() * 3)::int, 10000 + (random() * 90000)::int, CASE WHEN random() < 0.1 THEN 5000 ELSE 0 END, (ARRAY['EUR','USD'])[1 + (random() * 1)::int]
      FROM generate_series(1, 3000)`);
  await rebuildRollups(ds); // buckets from each account's zone, then main's status-keyed rollups (the patch leaves rebuild.ts as main has it)
  console.log('before (status-keyed):', await differing(ds, true));
  await ds.destroy();
  ds = await open(STATS_MIGRATIONS);
  console.log('after up (count columns):', await differing(ds, false));
  await ds.undoLastMigration();
  console.log('after down (status-keyed):', await differing(ds, true));
  await ds.destroy();
  await db.stop();
  console.log('carry-over and down: exact');
})().catch((e) => { console.error(e); process.exit(1); });
