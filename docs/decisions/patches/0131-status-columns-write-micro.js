// Write-side cost of the rollups with the status as a key column (main) against the statuses as count columns of one
// row (0126's next idea), PostgreSQL alone: a rollup_hour-shaped table (fillfactor 70, its primary key), 200,000 rows of
// one account over a year, batches of 5,000 messages written as the consumer writes them (array literals read by
// unnest, INSERT ... ON CONFLICT DO UPDATE, rows in key order), the backend's CPU from /proc and the WAL, the two forms
// in alternating rounds on fresh keys.
//   late:  5,000 known messages move from `accepted` to a final status (main: a decrement of one row and an increment
//          of another, mostly new; columns: one row, two counts moved)
//   fresh: 5,000 new messages in their final status (main: one new row each; columns: one new, wider row each)
// Run after a build: node docs/decisions/patches/0131-status-columns-write-micro.js (docs/decisions/0131).
const { benchDatabase } = require('../../../dist/bench/bench-database.js');
const { Client } = require('pg');
const fs = require('fs');
const cpu = (pid) => { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const STATUSES = ['accepted', 'sent', 'delivered', 'sent_failed', 'undelivered', 'no_routes', 'rejected'];
const COUNTRIES = ['DE', 'GB', 'FR', 'ES', 'IT', 'NL', 'PL', 'US', 'BR', 'IN'];
const N = 200_000, BATCH = 5_000, ROUNDS = Number(process.argv[2] ?? 8);
// COUNT_TYPE=integer: the count columns as int4 (an hour rollup row counts one hour's messages)
const COUNT_TYPE = process.env.COUNT_TYPE === 'integer' ? 'integer' : 'bigint';
let seed = 16; // the benches' generator (mulberry32)
const r = () => { seed = (seed + 0x6d2b79f5) >>> 0; let t = seed; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
const arr = (v) => `{${v.join(',')}}`;
(async () => {
  const db = await benchDatabase('stats-cols-micro-');
  const pg = new Client({ connectionString: db.url }); await pg.connect();
  await pg.query(`CREATE TABLE h_status (account_id bigint NOT NULL, bucket timestamptz NOT NULL, stream_id bigint NOT NULL, sender text NOT NULL, iso2 text NOT NULL, status text NOT NULL, currency text NOT NULL,
    messages bigint NOT NULL DEFAULT 0, parts bigint NOT NULL DEFAULT 0, cost_micros bigint NOT NULL DEFAULT 0, PRIMARY KEY (account_id, bucket, stream_id, sender, iso2, status, currency)) WITH (fillfactor = 70)`);
  await pg.query(`CREATE TABLE h_cols (account_id bigint NOT NULL, bucket timestamptz NOT NULL, stream_id bigint NOT NULL, sender text NOT NULL, iso2 text NOT NULL, currency text NOT NULL,
    messages bigint NOT NULL DEFAULT 0, parts bigint NOT NULL DEFAULT 0, cost_micros bigint NOT NULL DEFAULT 0, ${STATUSES.map((s) => `n_${s} ${COUNT_TYPE} NOT NULL DEFAULT 0`).join(', ')},
    PRIMARY KEY (account_id, bucket, stream_id, sender, iso2, currency)) WITH (fillfactor = 70)`);
  const now = Date.now();
  const key = () => ({ b: new Date(Math.floor((now - r() * 8760 * 3_600_000) / 3_600_000) * 3_600_000).toISOString(), st: String(1 + Math.floor(r() * 5)), se: `Sender${Math.floor(r() * 4)}`, i: COUNTRIES[Math.floor(r() * 10)] });
  const keys = new Map(); while (keys.size < N + ROUNDS * 2 * BATCH) { const k = key(); keys.set(`${k.b}|${k.st}|${k.se}|${k.i}`, k); }
  const all = [...keys.values()];
  const known = all.slice(0, N); const fresh = all.slice(N);
  const cost = 50_000;
  // the known messages, accepted: one row each
  for (let j = 0; j < N; j += 20_000) {
    const ks = known.slice(j, j + 20_000);
    await pg.query(`INSERT INTO h_status SELECT 1, b, st, se, i, 'accepted', 'EUR', 1, 1, ${cost} FROM unnest($1::timestamptz[], $2::bigint[], $3::text[], $4::text[]) t(b, st, se, i)`, [arr(ks.map((k) => k.b)), arr(ks.map((k) => k.st)), arr(ks.map((k) => k.se)), arr(ks.map((k) => k.i))]);
    await pg.query(`INSERT INTO h_cols (account_id, bucket, stream_id, sender, iso2, currency, messages, parts, cost_micros, n_accepted) SELECT 1, b, st, se, i, 'EUR', 1, 1, ${cost}, 1 FROM unnest($1::timestamptz[], $2::bigint[], $3::text[], $4::text[]) t(b, st, se, i)`, [arr(ks.map((k) => k.b)), arr(ks.map((k) => k.st)), arr(ks.map((k) => k.se)), arr(ks.map((k) => k.i))]);
  }
  await pg.query('VACUUM ANALYZE h_status'); await pg.query('VACUUM ANALYZE h_cols');
  const [{ pid }] = (await pg.query('SELECT pg_backend_pid() AS pid')).rows;
  const sum = (c) => `${c} = r.${c} + EXCLUDED.${c}`;
  // main's form: one delta row per key and status
  const writeStatus = (rows) => pg.query(
    `INSERT INTO h_status AS r (account_id, bucket, stream_id, sender, iso2, status, currency, messages, parts, cost_micros)
     SELECT 1, b, st, se, i, s, 'EUR', m, p, co FROM unnest($1::timestamptz[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[]) t(b, st, se, i, s, m, p, co) ORDER BY b, st, se, i, s
     ON CONFLICT (account_id, bucket, stream_id, sender, iso2, status, currency) DO UPDATE SET ${sum('messages')}, ${sum('parts')}, ${sum('cost_micros')}`,
    [arr(rows.map((x) => x.k.b)), arr(rows.map((x) => x.k.st)), arr(rows.map((x) => x.k.se)), arr(rows.map((x) => x.k.i)), arr(rows.map((x) => x.s)), arr(rows.map((x) => x.m)), arr(rows.map((x) => x.m)), arr(rows.map((x) => x.m * cost))]);
  // the columns' form: one delta row per key, a count per status
  const writeCols = (rows) => pg.query(
    `INSERT INTO h_cols AS r (account_id, bucket, stream_id, sender, iso2, currency, messages, parts, cost_micros, ${STATUSES.map((s) => `n_${s}`).join(', ')})
     SELECT 1, b, st, se, i, 'EUR', m, p, co, ${STATUSES.map((s) => `n_${s}`).join(', ')}
       FROM unnest($1::timestamptz[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], ${STATUSES.map((s, j) => `$${8 + j}::bigint[]`).join(', ')})
            t(b, st, se, i, m, p, co, ${STATUSES.map((s) => `n_${s}`).join(', ')}) ORDER BY b, st, se, i
     ON CONFLICT (account_id, bucket, stream_id, sender, iso2, currency) DO UPDATE SET ${['messages', 'parts', 'cost_micros', ...STATUSES.map((s) => `n_${s}`)].map(sum).join(', ')}`,
    [arr(rows.map((x) => x.k.b)), arr(rows.map((x) => x.k.st)), arr(rows.map((x) => x.k.se)), arr(rows.map((x) => x.k.i)), arr(rows.map((x) => x.m)), arr(rows.map((x) => x.m)), arr(rows.map((x) => x.m * cost)),
     ...STATUSES.map((s) => arr(rows.map((x) => x.n[s] ?? 0)))]);
  const final = (j) => (j % 20 < 17 ? 'delivered' : j % 20 < 19 ? 'undelivered' : 'no_routes');
  const forms = {
    late_status: (ks) => writeStatus(ks.flatMap((k, j) => [{ k, s: 'accepted', m: -1 }, { k, s: final(j), m: 1 }])),
    late_columns: (ks) => writeCols(ks.map((k, j) => ({ k, m: 0, n: { accepted: -1, [final(j)]: 1 } }))),
    fresh_status: (ks) => writeStatus(ks.map((k, j) => ({ k, s: final(j), m: 1 }))),
    fresh_columns: (ks) => writeCols(ks.map((k, j) => ({ k, m: 1, n: { [final(j)]: 1 } }))),
  };
  const res = {}; for (const k in forms) res[k] = { cpu: [], wal: [] };
  let nextKnown = 0, nextFresh = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? Object.keys(forms).reverse() : Object.keys(forms);
    for (const f of order) {
      const ks = f.startsWith('late') ? known.slice(nextKnown, (nextKnown += BATCH)) : fresh.slice(nextFresh, (nextFresh += BATCH));
      const [{ lsn }] = (await pg.query('SELECT pg_current_wal_lsn()::text AS lsn')).rows;
      const c0 = cpu(pid);
      await pg.query('BEGIN'); await forms[f](ks); await pg.query('COMMIT');
      res[f].cpu.push((1000 * (cpu(pid) - c0)) / BATCH);
      res[f].wal.push(Number((await pg.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint AS w', [lsn])).rows[0].w) / BATCH);
    }
  }
  const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
  const rows = (await pg.query(`SELECT (SELECT count(*) FROM h_status)::int AS s, (SELECT count(*) FROM h_cols)::int AS c, pg_relation_size('h_status') AS ss, pg_relation_size('h_cols') AS cs`)).rows[0];
  console.log(`counts ${COUNT_TYPE}; load ${require('os').loadavg()[0].toFixed(1)}; ${ROUNDS} rounds of ${BATCH} messages; rows at the end: status-keyed ${rows.s} (${(rows.ss / 1048576).toFixed(1)} MiB), columns ${rows.c} (${(rows.cs / 1048576).toFixed(1)} MiB)`);
  for (const k in res) console.log(`${k.padEnd(14)} backend CPU µs a message: median ${med(res[k].cpu).toFixed(1)} (${Math.min(...res[k].cpu).toFixed(1)}–${Math.max(...res[k].cpu).toFixed(1)}); WAL bytes a message: median ${med(res[k].wal).toFixed(0)}`);
  await pg.end(); await db.stop();
})().catch((e) => { console.error(e); process.exit(1); });
