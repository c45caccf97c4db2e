// dispatch's outbox write and the relay's read + delete of it alone: a carrier path's write batches (250 messages sent,
// then the same 250 final with their EDRs), as a $packed row (base form) or a compact $dispatch.lifecycle row.
// node outbox.js <repo> [rounds] ; backend CPU (10 ms ticks) and WAL a message, node CPU of building the row's text.
const root = process.argv[2];
require(root + '/node_modules/reflect-metadata');
const { randomUUID } = require('crypto');
const fs = require('fs');
const { Client } = require(root + '/node_modules/pg');
const { benchDatabase } = require(root + '/dist/bench/bench-database.js');
const { openServiceDataSource, timeOrderedUuid } = require(root + '/dist/libs/platform/src');
const { DISPATCH_MIGRATIONS } = require(root + '/dist/services/dispatch/src');
const ev = require(root + '/dist/services/dispatch/src/services/events.service.js');
const ce = require(root + '/dist/services/dispatch/src/services/compact-events.js');
const ROUNDS = Number(process.argv[3] ?? 40), B = 250;
let n = 0;
const row = (status, final) => { n++; return { id: String(n), uuid: randomUUID(), account_id: '12', stream_id: '34', stream_uid: 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6', campaign_id: '56', sender: 'Switchboard', destination: `33612${String(n).padStart(6, '0')}`, status, outgoing_status: final ? 'delivered' : 'sent', error: null, vendor_id: '2', provider_id: String(1e9 + n), sent_at: new Date(Date.now() - 2000).toISOString(), delivered_at: final ? new Date().toISOString() : null, mcc: '208', mnc: '01', network: 'Orange', body_length: 120, segments: 1, parts: 1, encoding: 'GSM7', price_micros: '6500', currency: 'EUR', possible_duplicate: false, traceparent: null }; };
async function main() {
  const db = await benchDatabase('sb-dispatchwal-ob-');
  const ds = await openServiceDataSource({ name: 'dispatch', url: db.url, schema: 'dispatch', entities: [], migrations: DISPATCH_MIGRATIONS, migrationsRun: true });
  await ds.destroy();
  const c = new Client({ connectionString: db.url }); await c.connect();
  const pid = (await c.query('SELECT pg_backend_pid() p')).rows[0].p;
  const cpu = () => { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(s[11]) + Number(s[12])) * 10000; };
  const lsn = async () => (await c.query('SELECT pg_current_wal_insert_lsn() l')).rows[0].l;
  const walSince = async (l) => Number((await c.query('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) d', [l])).rows[0].d);
  const res = {};
  for (let r = 0; r < ROUNDS * 2; r++) {
    const form = r % 2 ? 'compact' : 'packed';
    const sent = Array.from({ length: B }, () => row('sent', false));
    const finals = sent.map((s) => ({ ...s, status: 'delivered', outgoing_status: 'delivered', delivered_at: new Date().toISOString() }));
    const acc = (res[form] ??= { pg: 0, wal: 0, node: 0, relay: 0, bytes: 0 });
    for (const [rows, final] of [[sent, false], [finals, true]]) {
      const t0 = process.cpuUsage();
      const out = ev.batchStatusChanges(ev.lifecycleEvents(rows, { final }));
      const text = form === 'compact' ? ce.compactLifecycleText(out) : JSON.stringify(out);
      const t1 = process.cpuUsage(t0);
      acc.node += t1.user + t1.system; acc.bytes += text.length;
      const l = await lsn(); const c0 = cpu();
      await c.query('BEGIN');
      await c.query(`INSERT INTO "dispatch".outbox (event_id, topic, key, type, payload, packed) VALUES ($1, '', $2, $3, '{}', $4)`, [timeOrderedUuid(), String(out.length), form === 'compact' ? '$dispatch.lifecycle' : '$packed', text]);
      await c.query('COMMIT');
      // the relay's pass: read the row's text, delete it (deletePublished)
      await c.query('BEGIN');
      const got = await c.query(`SELECT id, packed FROM "dispatch".outbox WHERE published_at IS NULL ORDER BY id LIMIT 10`);
      await c.query(`DELETE FROM "dispatch".outbox WHERE id = ANY($1::bigint[])`, [got.rows.map((x) => x.id)]);
      await c.query('COMMIT');
      acc.pg += cpu() - c0; acc.wal += await walSince(l);
      const t2 = process.cpuUsage();
      const evs = form === 'compact' ? ce.unpackLifecycle(JSON.parse(got.rows[0].packed)) : JSON.parse(got.rows[0].packed);
      const t3 = process.cpuUsage(t2); acc.relay += t3.user + t3.system;
      if (evs.length !== out.length) throw new Error('lost events');
    }
  }
  for (const [form, a] of Object.entries(res)) {
    const m = ROUNDS * B; // messages (each written twice: sent, then final)
    console.log(`${form}: PostgreSQL ${(a.pg / m).toFixed(1)} µs a message (insert + read + delete, both writes), WAL ${(a.wal / m).toFixed(0)} B, row text ${(a.bytes / m).toFixed(0)} B; node: build the text ${(a.node / m).toFixed(2)} µs, relay parse (+unpack) ${(a.relay / m).toFixed(2)} µs`);
  }
  await c.end(); await db.stop();
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
