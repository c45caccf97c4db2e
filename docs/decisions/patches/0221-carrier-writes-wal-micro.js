// docs/decisions/0221: dispatch's carrier-path writes alone (insertAccepted claimed, markSent, finalizeFromReceipts), with
// WAL by relation and record type (pg_walinspect), backend and node CPU per step. RET=id: markSent returning only
// what the wait row needs (the bound of building its events from node's memory). EXPLAIN=1: one markSent's plan.
// node 0221-carrier-writes-wal-micro.js <repoRoot> [messages] [batch] [rounds]
const root = process.argv[2];
require(root + '/node_modules/reflect-metadata');
const { randomUUID } = require('crypto');
const fs = require('fs');
const { Client } = require(root + '/node_modules/pg');
const { benchDatabase } = require(root + '/dist/bench/bench-database.js');
const { openServiceDataSource } = require(root + '/dist/libs/platform/src');
const { DISPATCH_MIGRATIONS, MessageRepository } = require(root + '/dist/services/dispatch/src');
const N = Number(process.argv[3] ?? 10000), B = Number(process.argv[4] ?? 250), ROUNDS = Number(process.argv[5] ?? 2);
const DETAIL = process.env.DETAIL !== '0';
async function main() {
  const db = await benchDatabase('sb-dispatchwrite-wal-');
  const ds = await openServiceDataSource({ name: 'dispatch', url: db.url, schema: 'dispatch', entities: [], migrations: DISPATCH_MIGRATIONS, migrationsRun: true });
  await ds.destroy();
  const c = new Client({ connectionString: db.url }); await c.connect();
  await c.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  const pid = (await c.query('SELECT pg_backend_pid() p')).rows[0].p;
  const cpu = () => { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(s[11]) + Number(s[12])) * 10000; };
  const lsn = async () => (await c.query('SELECT pg_current_wal_insert_lsn()::text l')).rows[0].l;
  const repo = new MessageRepository({ query: async (sql, p) => (await c.query(sql, p)).rows });
  let n = 0;
  const acc = () => { n++; return { eventId: randomUUID(), uuid: randomUUID(), accountId: '7', streamId: '3', streamUid: 'st_3fa2c1b0', streamType: 1, campaignId: '12', channel: 'sms', sender: 'Switchboard',
    destination: `49151${String(1000000 + n)}`, iso2: 'DE', body: `Hi Name${n}, our spring sale starts today!`, payload: null, encoding: 'GSM7', segments: 1, priceMicros: 65000, currency: 'EUR', notBefore: null,
    acceptedAt: new Date().toISOString(), traceparent: null, attemptId: randomUUID() }; };
  let explainNext = false;
  const q = { query: async (sql, p) => {
    if (explainNext && /provider_ref/.test(sql) && /^\s*WITH upd AS/.test(sql)) {
      explainNext = false;
      await c.query('BEGIN');
      const plan = (await c.query('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' + sql, p)).rows.map((r) => r['QUERY PLAN']).join('\n');
      await c.query('ROLLBACK');
      console.log(plan);
    }
    if (process.env.RET === 'id' && /^\s*WITH upd AS/.test(sql) && /message_awaiting \(message_id/.test(sql)) sql = sql.replace(/RETURNING m\.id, m\.uuid[\s\S]*?m\.traceparent/, 'RETURNING m.id, m.vendor_id, m.sent_at');
    return c.query(sql, p).then((r) => r.rows);
  } };
  const hot = async () => (await c.query(`SELECT pg_stat_force_next_flush(); SELECT 1`)) && (await c.query(`SELECT n_tup_upd::int u, n_tup_hot_upd::int h, n_tup_newpage_upd::int np FROM pg_stat_user_tables WHERE schemaname='dispatch' AND relname='message'`)).rows[0];
  const walBy = async (from, to) => (await c.query(`
    WITH r AS (SELECT resource_manager rm, record_type, record_length, fpi_length, regexp_match(block_ref, 'rel (\\d+)/(\\d+)/(\\d+)') rel FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)),
    n AS (SELECT r.*, CASE WHEN rel IS NULL THEN NULL ELSE pg_filenode_relation(CASE WHEN rel[1]::oid = (SELECT oid FROM pg_tablespace WHERE spcname='pg_default') THEN 0 ELSE rel[1]::oid END, rel[3]::oid) END relid FROM r)
    SELECT coalesce(relid::regclass::text, '(' || rm || ')') what, rm || '/' || record_type kind, count(*)::int recs, sum(record_length)::bigint bytes, sum(fpi_length)::bigint fpi
      FROM n GROUP BY 1, 2 ORDER BY 4 DESC`, [from, to])).rows;
  for (let r = 1; r <= ROUNDS; r++) {
    let claimed = [];
    const step = async (name, fn) => {
      const h0 = await hot();
      const l = await lsn(); const c0 = cpu(); const t0 = performance.now(); const n0 = process.cpuUsage();
      await fn();
      const cp = (cpu() - c0) / N, wall = (performance.now() - t0) * 1000 / N; const nu = process.cpuUsage(n0); const nodeUs = (nu.user + nu.system) / N;
      const l2 = await lsn();
      const rows = await walBy(l, l2);
      const h1 = await hot();
      const tot = rows.reduce((s, x) => s + Number(x.bytes), 0);
      console.log(`round ${r} ${name}: ${cp.toFixed(1)} µs cpu, node ${nodeUs.toFixed(1)} µs, ${wall.toFixed(1)} µs wall, ${(tot / N).toFixed(0)} B WAL a message; dispatch.message updates ${h1.u - h0.u} (HOT ${h1.h - h0.h}, new page ${h1.np - h0.np})`);
      if (DETAIL) for (const x of rows) if (Number(x.bytes) / N >= 0.5) console.log(`   ${(Number(x.bytes) / N).toFixed(1).padStart(7)} B ${(x.recs / N).toFixed(3).padStart(6)} rec  fpi ${(Number(x.fpi) / N).toFixed(1).padStart(5)}  ${x.what}  ${x.kind}`);
    };
    await step('insertAccepted', async () => { for (let i = 0; i < N; i += B) claimed.push(...(await repo.insertAccepted(q, Array.from({ length: Math.min(B, N - i) }, acc), randomUUID()))); });
    await step('markSent', async () => { for (let i = 0; i < claimed.length; i += B) { if (process.env.EXPLAIN && i === B * 20) explainNext = true; await repo.markSent(q, claimed.slice(i, i + B).map((x) => ({ id: x.id, attemptId: x.attempt_id, vendorId: '2', providerIds: [`${(0x10000000 + Number(x.id)).toString(16)}`] }))); } });
    await step('finalize', async () => { for (let i = 0; i < claimed.length; i += B) await repo.finalizeFromReceipts(q, claimed.slice(i, i + B).map((x) => ({ id: x.id, status: 'delivered', outgoing: 'delivered', error: null, deliveredAt: new Date() }))); });
  }
  const sz = (await c.query(`SELECT avg(pg_column_size(m.*))::int w FROM dispatch.message m`)).rows[0];
  console.log(`avg row width ${sz.w} B`);
  await c.end(); await db.stop();
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
