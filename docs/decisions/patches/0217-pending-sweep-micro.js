// node docs/decisions/patches/0217-pending-sweep-micro.js <repo> [refs=20000] [calls=20]; PENDING=<n> pending receipts (half of them matching), EXPLAIN=1, ANALYZE=1
// takeMatchedPending alone: N messages sent (refs waiting), pending_receipt empty or with a few rows; EXPLAIN + backend CPU a call.
const root = process.argv[2];
require(root + '/node_modules/reflect-metadata');
const { randomUUID } = require('crypto');
const fs = require('fs');
const { Client } = require(root + '/node_modules/pg');
const { benchDatabase } = require(root + '/dist/bench/bench-database.js');
const { openServiceDataSource } = require(root + '/dist/libs/platform/src');
const { DISPATCH_MIGRATIONS, MessageRepository } = require(root + '/dist/services/dispatch/src');
const N = Number(process.argv[3] ?? 20000), B = 250, CALLS = Number(process.argv[4] ?? 20), PENDING = Number(process.env.PENDING ?? 0);
async function main() {
  const db = await benchDatabase('sb-dispatchwal-pend-');
  const ds = await openServiceDataSource({ name: 'dispatch', url: db.url, schema: 'dispatch', entities: [], migrations: DISPATCH_MIGRATIONS, migrationsRun: true });
  await ds.destroy();
  const c = new Client({ connectionString: db.url }); await c.connect();
  const pid = (await c.query('SELECT pg_backend_pid() p')).rows[0].p;
  const cpu = () => { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(s[11]) + Number(s[12])) * 10000; };
  const q = { query: (sql, p) => c.query(sql, p).then((r) => r.rows) };
  const repo = new MessageRepository(q);
  repo.ds = q;
  let n = 0;
  const acc = () => { n++; return { eventId: randomUUID(), uuid: randomUUID(), accountId: '7', streamId: '3', streamUid: 'st-3', streamType: 1, campaignId: null, channel: 'sms', sender: 'S',
    destination: `49151${String(1000000 + n)}`, iso2: 'DE', body: `hello ${n}`, payload: null, encoding: 'gsm7', segments: 1, priceMicros: 6500, currency: 'EUR', notBefore: null,
    acceptedAt: new Date().toISOString(), traceparent: null, attemptId: randomUUID() }; };
  const claimed = [];
  for (let i = 0; i < N; i += B) claimed.push(...(await repo.insertAccepted(q, Array.from({ length: Math.min(B, N - i) }, acc), randomUUID())));
  for (let i = 0; i < claimed.length; i += B) await repo.markSent(q, claimed.slice(i, i + B).map((x) => ({ id: x.id, attemptId: x.attempt_id, vendorId: '2', providerIds: [`p-${x.id}`] })));
  if (process.env.ANALYZE === '1') await c.query('ANALYZE dispatch.provider_ref; ANALYZE dispatch.message; ANALYZE dispatch.pending_receipt');
  // pending rows: receipts whose refs now exist (half) and unknown ids (half)
  const mk = () => { const rows = []; for (let i = 0; i < PENDING; i++) rows.push({ vendorId: '2', pid: i % 2 ? `p-${claimed[i].id}` : `zz-${i}`, outcome: 'delivered', error: null, at: new Date(), destination: null }); return rows; };
  await repo.storePending(q, mk());
  const sweepSql = process.env.EXPLAIN === '1';
  if (sweepSql) {
    const orig = c.query.bind(c);
    let shown = false;
    c.query = async (sql, p) => { if (!shown && /DELETE FROM dispatch.pending_receipt p\s+WHERE/.test(sql)) { shown = true; const r = await orig('EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ' + sql, p); console.log(r.rows.map((x) => x['QUERY PLAN']).join('\n')); await orig('ROLLBACK').catch(() => {}); } return orig(sql, p); };
  }
  const c0 = cpu(); const t0 = performance.now(); let got = 0;
  for (let k = 0; k < CALLS; k++) { got += (await repo.takeMatchedPending(1000, 600000)).length; if (PENDING) await repo.storePending(q, mk()); }
  console.log(`N=${N} pending=${PENDING}: ${((cpu() - c0) / CALLS / 1000).toFixed(2)} ms cpu a call, ${((performance.now() - t0) / CALLS).toFixed(2)} ms wall a call, taken ${got}`);
  await c.end(); await db.stop();
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
