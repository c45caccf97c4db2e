// docs/decisions/0145: run from a built tree (node scripts/build.mjs --server-only), e.g. node docs/decisions/patches/0145-upsert-or-update.js
// Backend CPU from /proc (10 ms ticks) of one connection to an embedded PostgreSQL, µs a row.
const { benchDatabase } = require(require('path').resolve('dist/bench/bench-database.js'));
const { Client } = require(require('path').resolve('node_modules/pg'));
const fs = require('fs');
(async () => {
  const db = await benchDatabase('sb-ingest-micro-');
  const c = new Client({ connectionString: db.url }); await c.connect();
  const N = 'n0, n1, n2, n3, n4, n5, n6';
  await c.query(`CREATE TABLE h (account_id bigint, bucket timestamptz, stream_id bigint, sender text, iso2 text, currency text, messages bigint, parts bigint, cost_micros bigint,
     n0 bigint, n1 bigint, n2 bigint, n3 bigint, n4 bigint, n5 bigint, n6 bigint, PRIMARY KEY (account_id, bucket, stream_id, sender, iso2, currency)) WITH (fillfactor=70)`);
  await c.query(`INSERT INTO h SELECT 1, now() - i * interval '1 hour', i % 5, 'Sender' || (i % 4), 'DE', 'EUR', 1, 1, 50000, 1,0,0,0,0,0,0 FROM generate_series(1, 20000) i`);
  await c.query('VACUUM ANALYZE h');
  const [{ pid }] = (await c.query('SELECT pg_backend_pid() AS pid')).rows;
  const cpu = () => { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
  const keys = (await c.query(`SELECT (extract(epoch from bucket)*1000)::bigint::text AS b, stream_id::text AS st, sender FROM h ORDER BY random() LIMIT 2835`)).rows;
  const arr = (v) => `{${v.join(',')}}`;
  const b = arr(keys.map(k => new Date(Number(k.b)).toISOString())), st = arr(keys.map(k => k.st)), se = arr(keys.map(k => k.sender));
  const one = arr(keys.map(() => 1)), zero = arr(keys.map(() => 0)), neg = arr(keys.map(() => -1));
  const a = arr(keys.map(() => 1)), i = arr(keys.map(() => 'DE')), cu = arr(keys.map(() => 'EUR'));
  const params = [a, b, st, se, i, cu, zero, zero, zero, neg, zero, one, zero, zero, zero, zero];
  const v = `unnest($1::bigint[], $2::timestamptz[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[], $16::bigint[]) AS t(a, b, st, se, i, c, m, p, co, ${N})`;
  const cols = ['messages', 'parts', 'cost_micros', ...N.split(', ')];
  const upsert = `INSERT INTO h AS r SELECT * FROM ${v} ORDER BY a, b, st, se, i, c ON CONFLICT (account_id, bucket, stream_id, sender, iso2, currency) DO UPDATE SET ${cols.map(x => `${x} = r.${x} + EXCLUDED.${x}`).join(', ')}`;
  const src = ['m', 'p', 'co', ...N.split(', ')];
  const update = `UPDATE h r SET ${cols.map((x, j) => `${x} = r.${x} + t.${src[j]}`).join(', ')} FROM ${v} WHERE r.account_id = t.a AND r.bucket = t.b AND r.stream_id = t.st AND r.sender = t.se AND r.iso2 = t.i AND r.currency = t.c`;
  const res = { upsert: [], update: [] };
  for (let round = 0; round < 8; round++) for (const k of round % 2 ? ['update', 'upsert'] : ['upsert', 'update']) {
    await c.query('BEGIN'); const c0 = cpu(); const t0 = performance.now();
    for (let j = 0; j < 10; j++) { const r = await c.query(k === 'upsert' ? upsert : update, params); if (r.rowCount !== 2835) throw new Error(k + r.rowCount); }
    await c.query('COMMIT'); await c.query('VACUUM h');
    res[k].push(((cpu() - c0) * 1000 / 28350).toFixed(2) + '/' + ((performance.now() - t0) * 1000 / 28350).toFixed(2));
  }
  console.log(JSON.stringify(res));
  console.log((await c.query('EXPLAIN ' + update, params)).rows.map(r => r['QUERY PLAN']).join('\n'));
  await c.end(); await db.stop();
})().catch(e => { console.error(e); process.exit(1); });
