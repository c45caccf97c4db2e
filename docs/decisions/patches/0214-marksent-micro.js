// markSent (+ its provider_ref insert) and the receipt's writes alone, base build against this branch's, same schema.
// node marksent.js <repoDist> [messages] [batch] [rounds]
const root = process.argv[2];
require(root + '/node_modules/reflect-metadata');
const { randomUUID } = require('crypto');
const fs = require('fs');
const { Client } = require(root + '/node_modules/pg');
const { benchDatabase } = require(root + '/dist/bench/bench-database.js');
const { openServiceDataSource } = require(root + '/dist/libs/platform/src');
const { DISPATCH_MIGRATIONS, MessageRepository } = require(root + '/dist/services/dispatch/src');
const N = Number(process.argv[3] ?? 10000), B = Number(process.argv[4] ?? 250), ROUNDS = Number(process.argv[5] ?? 3);
async function main() {
  const db = await benchDatabase('sb-refoutcome-ms-');
  const ds = await openServiceDataSource({ name: 'dispatch', url: db.url, schema: 'dispatch', entities: [], migrations: DISPATCH_MIGRATIONS, migrationsRun: true });
  await ds.destroy();
  const c = new Client({ connectionString: db.url }); await c.connect();
  const pid = (await c.query('SELECT pg_backend_pid() p')).rows[0].p;
  const cpu = () => { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(s[11]) + Number(s[12])) * 10000; };
  const lsn = async () => (await c.query('SELECT pg_current_wal_insert_lsn() l')).rows[0].l;
  const walSince = async (l) => Number((await c.query('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) d', [l])).rows[0].d);
  const repo = new MessageRepository({ query: async (sql, p) => (await c.query(sql, p)).rows });
  let n = 0;
  const acc = () => { n++; return { eventId: randomUUID(), uuid: randomUUID(), accountId: '7', streamId: '3', streamUid: 'st-3', streamType: 1, campaignId: null, channel: 'sms', sender: 'S',
    destination: `49151${String(1000000 + n)}`, iso2: 'DE', body: `hello ${n}`, payload: null, encoding: 'gsm7', segments: 1, priceMicros: 6500, currency: 'EUR', notBefore: null,
    acceptedAt: new Date().toISOString(), traceparent: null, attemptId: randomUUID() }; };
  const q = { query: (sql, p) => c.query(sql, p).then((r) => r.rows) };
  for (let r = 1; r <= ROUNDS; r++) {
    const claimed = [];
    for (let i = 0; i < N; i += B) claimed.push(...(await repo.insertAccepted(q, Array.from({ length: Math.min(B, N - i) }, acc), randomUUID())));
    const step = async (name, fn) => {
      const l = await lsn(); const c0 = cpu(); const t0 = performance.now();
      for (let i = 0; i < claimed.length; i += B) await fn(claimed.slice(i, i + B));
      return `${name} ${((cpu() - c0) / N).toFixed(1)} µs cpu, ${((performance.now() - t0) * 1000 / N).toFixed(1)} µs wall, ${((await walSince(l)) / N).toFixed(0)} B`;
    };
    const a = await step('markSent', (b) => repo.markSent(q, b.map((x) => ({ id: x.id, attemptId: x.attempt_id, vendorId: '2', providerIds: [`p-${x.id}`] }))));
    // the receipt's writes as the dispatcher makes them for a single-part message (base: the part's outcome, then the finalize)
    const setRef = process.env.SETREF === '1';
    const b = await step('receipt', async (bb) => {
      if (setRef) await repo.setRefOutcomes(q, bb.map((x) => ({ messageId: x.id, part: 1, vendorId: '2', pid: `p-${x.id}`, outcome: 'delivered', error: null })));
      await repo.finalizeFromReceipts(q, bb.map((x) => ({ id: x.id, status: 'delivered', outgoing: 'delivered', error: null, deliveredAt: new Date() })));
    });
    console.log(`round ${r}: ${a} | ${b}${setRef ? ' (with the part outcome)' : ''}`);
  }
  await c.end(); await db.stop();
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
