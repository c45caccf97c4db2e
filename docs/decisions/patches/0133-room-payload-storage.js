// 0133: room_payload storage variants, backend CPU (/proc, 10-ms ticks) and WAL a payload at batches of SIZES; run from the repo root after a server build: SIZES=5,25,100 TOTAL=10000 node docs/decisions/patches/0133-room-payload-storage.js
const fs = require('node:fs');
const { randomUUID } = require('node:crypto');
const { Client } = require(require('node:path').resolve('node_modules/pg'));
const { benchDatabase } = require(require('node:path').resolve('dist/bench/bench-database.js'));
const words = 'hello thanks order delivery tomorrow please call me back when is my parcel arriving yes no maybe price invoice'.split(' ');
let n = 0;
function payload() {
  n++;
  const conv = randomUUID(), now = new Date(Date.now() + n).toISOString();
  const body = Array.from({ length: 8 + (n % 12) }, (_, i) => words[(n * 7 + i * 3) % words.length]).join(' ');
  const phone = `+49170${String(1000000 + n).slice(-7)}`;
  return { conversation: { uuid: conv, status: 'unanswered', unread: 1, temp: false, channel: n % 2 ? 'sms' : 'whatsapp', stream_id: '12', stream_uid: randomUUID(), stream_type: n % 2 ? 1 : 3, account_phone: '+4930111111', contact_phone: phone, contact_key: null, contact_name: n % 2 ? null : `Customer ${n}`, space_id: '1', team_ids: ['1'], agent_ids: [], tag_ids: [], start_time: now, last_incoming_at: now, last_message: body, last_message_type: 'text', last_updated: now, closed_by: null, closed_at: null, just_added: true, goal_id: null, conversion_status: null },
    message: { uuid: randomUUID(), conversation_uuid: conv, message_uuid: randomUUID(), event_type: 'incoming_message', message_time: now, read_at: null, send_status: null, send_error: null, actor: { type: 'contact', id: null, name: n % 2 ? null : `Customer ${n}` }, content: { type: 'text', text: body }, event_data: null, source: phone, destination: '+4930111111', message_type: 'text' } };
}
const V = {
  nothing: { table: 'rp_one', setup: '', sql: `SELECT length($1::text)` },
  one: { table: 'rp_one', setup: '', sql: `INSERT INTO rp_one (payload, at) VALUES ($1::json, now())` },
  rows: { table: 'rp_rows', setup: '', sql: `INSERT INTO rp_rows (payload, at) SELECT x, now() FROM json_array_elements($1::json) x` },
  external: { table: 'rp_ext', setup: `ALTER TABLE rp_ext ALTER COLUMN payload SET STORAGE EXTERNAL`, sql: `INSERT INTO rp_ext (payload, at) VALUES ($1::json, now())` },
  main: { table: 'rp_main', setup: `ALTER TABLE rp_main ALTER COLUMN payload SET STORAGE MAIN`, sql: `INSERT INTO rp_main (payload, at) VALUES ($1::json, now())` },
  valid: { table: 'rp_one', setup: '', sql: `SELECT ($1::json) IS NOT NULL` },
  parse: { table: 'rp_one', setup: '', sql: `SELECT count(*) FROM json_array_elements($1::json)` },
};
const cpu = (pid) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
(async () => {
  const db = await benchDatabase('rp-');
  const c = new Client({ connectionString: db.url }); await c.connect();
  for (const v of Object.values(V)) { await c.query(`CREATE TABLE IF NOT EXISTS ${v.table} (id bigserial PRIMARY KEY, payload json NOT NULL, at timestamptz NOT NULL)`); if (v.setup) await c.query(v.setup); }
  const [{ pid }] = (await c.query('SELECT pg_backend_pid() AS pid')).rows;
  const sizes = (process.env.SIZES ?? '5,25,100').split(',').map(Number);
  const total = Number(process.env.TOTAL ?? 20000);
  const batches = {}; for (const s of sizes) batches[s] = Array.from({ length: Math.ceil(total / s) }, () => JSON.stringify(Array.from({ length: s }, payload)));
  console.log('payload bytes', JSON.parse(batches[sizes[0]][0]).map((p) => JSON.stringify(p).length).slice(0, 3));
  for (let round = 0; round < 3; round++) for (const s of sizes) for (const [name, v] of Object.entries(V)) {
    await c.query(`PREPARE p_${name}_${s}_${round} AS ${v.sql.replace('$1::json', '$1::text::json')}`);
    const [{ l: l0 }] = (await c.query('SELECT pg_current_wal_insert_lsn() AS l')).rows;
    const c0 = cpu(pid), t0 = process.hrtime.bigint();
    for (const b of batches[s]) { await c.query('BEGIN'); await c.query({ text: v.sql, values: [b] }); await c.query('COMMIT'); }
    const c1 = cpu(pid), t1 = process.hrtime.bigint();
    const [{ w }] = (await c.query(`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) AS w`, [l0])).rows;
    const m = batches[s].length * s;
    console.log(`round ${round} batch ${String(s).padStart(3)} ${name.padEnd(8)} backend CPU ${(c1 - c0) * 1000 / m | 0} µs, wall ${Number(t1 - t0) / 1000 / m | 0} µs, WAL ${w / m | 0} B a payload`);
  }
  await c.end(); await db.stop();
})().catch((e) => { console.error(e); process.exit(1); });
