// docs/decisions/0172: run from a built tree (node scripts/build.mjs --server-only):
//   node docs/decisions/patches/0172-new-row-write-micro.js
// Backend CPU from /proc (10 ms ticks) of one connection to an embedded PostgreSQL, µs a row: a batch's hour rollup
// deltas of a many-account workload (1,666 rows a batch, 95 % of them new keys among existing rows), written
// (upsert) as the consumer does, (plain) as an INSERT without the arbiter, (copy) through COPY into a temporary staging
// table and one INSERT ... SELECT ... ON CONFLICT, (parse) the unnest alone, (monthnum/monthint) the month GROUP BY of
// day deltas with bigint vs integer count columns.
const { benchDatabase } = require(require('path').resolve('dist/bench/bench-database.js'));
const { Client } = require(require('path').resolve('node_modules/pg'));
const { from: copyFrom } = require(require('path').resolve('node_modules/pg-copy-streams'));
const fs = require('fs');
(async () => {
  const db = await benchDatabase('sb-ingest3-micro-');
  const c = new Client({ connectionString: db.url }); await c.connect();
  const N = 'n0, n1, n2, n3, n4, n5, n6';
  const ddl = (t) => `CREATE TABLE ${t} (account_id bigint, bucket timestamptz, stream_id bigint, sender text, iso2 text, currency text, messages bigint, parts bigint, cost_micros bigint,
     n0 bigint, n1 bigint, n2 bigint, n3 bigint, n4 bigint, n5 bigint, n6 bigint, PRIMARY KEY (account_id, bucket, stream_id, sender, iso2, currency)) WITH (fillfactor=70)`;
  for (const t of ['h_upsert', 'h_plain', 'h_copy']) {
    await c.query(ddl(t));
    await c.query(`INSERT INTO ${t} SELECT 1 + i % 1000, date_trunc('hour', now()) - (i / 1000) * interval '1 hour', i % 5, 'Sender' || (i % 4), 'DE', 'EUR', 1, 1, 50000, 1,0,0,0,0,0,0 FROM generate_series(1, 20000) i`);
    await c.query(`VACUUM ANALYZE ${t}`);
  }
  const [{ pid }] = (await c.query('SELECT pg_backend_pid() AS pid')).rows;
  const cpu = () => { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
  const ROWS = 1666;
  const COUNTRIES = ['DE', 'GB', 'FR', 'ES', 'IT', 'NL', 'PL', 'US', 'BR', 'IN'];
  let seq = 0;
  /** a batch's deltas: new keys (a country per batch sequence keeps them new) spread over 1,000 accounts */
  const batch = () => {
    seq++;
    const rows = [];
    for (let j = 0; j < ROWS; j++) rows.push({ a: String(1 + ((j * 7 + seq) % 1000)), b: new Date(Math.floor(Date.now() / 3600000) * 3600000 - (seq % 3) * 3600000).toISOString(), st: String(1 + (j % 5)), se: `Sender${j % 4}`, i: `${COUNTRIES[j % 10]}${seq}x${Math.floor(j / 1000)}`, c: 'EUR' });
    return rows;
  };
  const arr = (v) => `{${v.join(',')}}`;
  const params = (rows) => [arr(rows.map((r) => r.a)), arr(rows.map((r) => r.b)), arr(rows.map((r) => r.st)), arr(rows.map((r) => r.se)), arr(rows.map((r) => r.i)), arr(rows.map((r) => r.c)),
    arr(rows.map(() => 1)), arr(rows.map(() => 1)), arr(rows.map(() => 51234)), arr(rows.map(() => 0)), arr(rows.map(() => 0)), arr(rows.map(() => 1)), arr(rows.map(() => 0)), arr(rows.map(() => 0)), arr(rows.map(() => 0)), arr(rows.map(() => 0))];
  const v = `unnest($1::bigint[], $2::timestamptz[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[], $16::bigint[]) AS t(a, b, st, se, i, c, m, p, co, ${N})`;
  const cols = ['messages', 'parts', 'cost_micros', ...N.split(', ')];
  const set = cols.map((x) => `${x} = r.${x} + EXCLUDED.${x}`).join(', ');
  const key = '(account_id, bucket, stream_id, sender, iso2, currency)';
  const vdInt = `unnest($1::bigint[], $2::date[], $3::bigint[], $4::text[], $5::text[], $6::int[], $7::int[], $8::bigint[], $9::int[], $10::int[], $11::int[], $12::int[], $13::int[], $14::int[], $15::int[]) AS t(a, b, st, i, c, m, p, co, ${N})`;
  const vdNum = vdInt.replace(/::int\[\]/g, '::bigint[]');
  const month = (src) => `SELECT count(*) FROM (SELECT a, date_trunc('month', b)::date, i, st, c, sum(m)::bigint, sum(p)::bigint, sum(co)::bigint, ${N.split(', ').map((n) => `sum(${n})::bigint`).join(', ')} FROM ${src} GROUP BY a, 2, i, st, c HAVING sum(m) <> 0 OR sum(p) <> 0 OR sum(co) <> 0 ORDER BY a, 2, i, st, c) x`;
  const dayParams = (rows) => [arr(rows.map((r) => r.a)), arr(rows.map((r) => r.b.slice(0, 10))), arr(rows.map((r) => r.st)), arr(rows.map((r) => r.i)), arr(rows.map((r) => r.c)), ...params(rows).slice(6, 16)];
  const kinds = {
    upsert: async (rows) => c.query(`INSERT INTO h_upsert AS r SELECT * FROM ${v} ORDER BY a, b, st, se, i, c ON CONFLICT ${key} DO UPDATE SET ${set}`, params(rows)),
    plain: async (rows) => c.query(`INSERT INTO h_plain AS r SELECT * FROM ${v} ORDER BY a, b, st, se, i, c`, params(rows)),
    copy: async (rows) => {
      await c.query(`CREATE TEMP TABLE IF NOT EXISTS h_stage (a bigint, b timestamptz, st bigint, se text, i text, c text, m bigint, p bigint, co bigint, ${N.split(', ').map((n) => `${n} bigint`).join(', ')}) ON COMMIT DELETE ROWS`);
      const text = rows.map((r) => `${r.a}\t${r.b}\t${r.st}\t${r.se}\t${r.i}\t${r.c}\t1\t1\t51234\t0\t0\t1\t0\t0\t0\t0\n`).join('');
      await new Promise((res, rej) => { const s = c.query(copyFrom('COPY h_stage FROM STDIN')); s.on('finish', res); s.on('error', rej); s.end(text); });
      await c.query(`INSERT INTO h_copy AS r SELECT * FROM h_stage ORDER BY a, b, st, se, i, c ON CONFLICT ${key} DO UPDATE SET ${set}`);
      await c.query('TRUNCATE h_stage');
    },
    parse: async (rows) => c.query(`SELECT count(*) FROM (SELECT * FROM ${v} ORDER BY a, b, st, se, i, c) x`, params(rows)),
    monthnum: async (rows) => c.query(month(vdNum), dayParams(rows)),
    monthint: async (rows) => c.query(month(vdInt), dayParams(rows)),
  };
  const res = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  const order = Object.keys(kinds);
  for (let round = 0; round < 6; round++) {
    for (const k of round % 2 ? [...order].reverse() : order) {
      const batches = Array.from({ length: 12 }, batch);
      await c.query('BEGIN'); const c0 = cpu();
      for (const rows of batches) await kinds[k](rows);
      await c.query('COMMIT');
      res[k].push(((cpu() - c0) * 1000 / (12 * ROWS)).toFixed(2));
    }
  }
  for (const [k, xs] of Object.entries(res)) console.log(k.padEnd(9), xs.join(' '));
  await c.end(); await db.stop();
})().catch((e) => { console.error(e); process.exit(1); });
