// 0205: stats' state read-modify-write of a batch of known messages, the read locking each state (FOR UPDATE, before)
// against the read taking each state's row version (xmin) and the write checking it (after). A table shaped and filled
// like stats.message_state (fillfactor 40), 1,000-message batches of existing states whose status moves (the narrow
// update), read and written the consumer's way in one transaction; backend CPU from /proc/<pid>/schedstat and WAL bytes
// (pg_current_wal_insert_lsn) per message, alternating turns. Run from the repository root after
// `node scripts/build.mjs --server-only`: node docs/decisions/patches/0205-state-read-lock-micro.js [turns=6]
const fs = require('fs'); const os = require('os'); const path = require('path');
const { startEmbeddedPostgres } = require(path.resolve('dist/libs/platform/src/database/embedded-postgres.js'));
const { Client } = require('pg');
(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-')); fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  const c = new Client({ connectionString: pg.localUrl() }); await c.connect();
  await c.query(`CREATE TABLE ms (message_uuid uuid PRIMARY KEY, account_id bigint NOT NULL, stream_id bigint, sender text NOT NULL DEFAULT '', iso2 text NOT NULL DEFAULT '',
    status text NOT NULL, rank smallint NOT NULL, accepted_at timestamptz, hour_bucket timestamptz, day_bucket date, segments int NOT NULL DEFAULT 1, price_micros bigint NOT NULL DEFAULT 0,
    refunded_micros bigint NOT NULL DEFAULT 0, currency text NOT NULL DEFAULT '', campaign_id bigint, variant_id bigint, destination text) WITH (fillfactor = 40)`);
  const N = 1000; const BATCHES = 200;
  await c.query(`INSERT INTO ms SELECT gen_random_uuid(), 1, 2, 'SHOP', 'DE', 'accepted', 0, now(), date_trunc('hour', now()), current_date, 1, 40000, 0, 'EUR', 3, 4, '+4915110000000' FROM generate_series(1, $1)`, [N * BATCHES]);
  await c.query('VACUUM ANALYZE ms');
  const all = (await c.query('SELECT message_uuid::text AS u FROM ms ORDER BY random()')).rows.map((r) => r.u);
  const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
  const cpu = () => Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  const lsn = async () => BigInt((await c.query(`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text AS l`)).rows[0].l);
  let next = 0; let statusOf = 'sent';
  const read = {
    lock: `WITH t AS (SELECT * FROM unnest($1::uuid[]) WITH ORDINALITY AS t(u, o)), s AS (SELECT * FROM ms WHERE message_uuid = ANY($1::uuid[]) ORDER BY message_uuid FOR UPDATE)
           SELECT t.o::int - 1 AS o, s.status, s.rank, s.stream_id::text, s.sender, s.price_micros::text FROM t LEFT JOIN s ON s.message_uuid = t.u`,
    xmin: `WITH t AS (SELECT * FROM unnest($1::uuid[]) WITH ORDINALITY AS t(u, o)), s AS (SELECT *, xmin AS x FROM ms WHERE message_uuid = ANY($1::uuid[]))
           SELECT t.o::int - 1 AS o, s.x::text AS x, s.status, s.rank, s.stream_id::text, s.sender, s.price_micros::text FROM t LEFT JOIN s ON s.message_uuid = t.u`,
  };
  const write = {
    lock: `WITH sm AS (UPDATE ms m SET status = n.status, rank = n.rank FROM unnest($1::uuid[], $2::text[], $3::smallint[]) AS n(u, status, rank) WHERE m.message_uuid = n.u AND m.message_uuid = ANY($1::uuid[]))
           SELECT 1`,
    xmin: `WITH sm AS (UPDATE ms m SET status = n.status, rank = n.rank FROM unnest($1::uuid[], $2::text[], $3::smallint[], $4::xid[]) AS n(u, status, rank, x)
             WHERE m.message_uuid = n.u AND m.message_uuid = ANY($1::uuid[]) AND m.xmin = n.x RETURNING 1)
           SELECT (SELECT count(*) FROM sm)::int AS moved`,
  };
  async function turn(mode, batches) {
    let wal = 0n; let t = 0;
    for (let b = 0; b < batches; b++) {
      if (next + N > all.length) { next = 0; statusOf = statusOf === 'sent' ? 'delivered' : 'sent'; }
      const uuids = all.slice(next, next + N); next += N;
      const t0 = cpu(); const w0 = await lsn();
      await c.query('BEGIN');
      const rows = (await c.query({ name: `r-${mode}`, text: read[mode], values: [`{${uuids.join(',')}}`] })).rows;
      const params = [`{${uuids.join(',')}}`, `{${uuids.map(() => statusOf).join(',')}}`, `{${uuids.map(() => 1).join(',')}}`];
      if (mode === 'xmin') params.push(`{${rows.map((r) => r.x).join(',')}}`);
      const [r] = (await c.query({ name: `w-${mode}`, text: write[mode], values: params })).rows;
      if (mode === 'xmin' && r.moved !== N) throw new Error(`moved ${r.moved}`);
      await c.query('COMMIT');
      t += cpu() - t0; wal += (await lsn()) - w0;
    }
    return { us: t / batches / N / 1000, wal: Number(wal) / batches / N };
  }
  await turn('lock', 20); await turn('xmin', 20);
  const out = { lock: [], xmin: [] };
  const turns = Number(process.argv[2] ?? 6);
  for (let i = 0; i < turns; i++) {
    for (const mode of i % 2 ? ['xmin', 'lock'] : ['lock', 'xmin']) {
      const r = await turn(mode, 40); out[mode].push(r);
      console.log(`turn ${i} ${mode}: ${r.us.toFixed(2)} µs backend CPU, ${r.wal.toFixed(0)} B WAL a message`);
    }
  }
  const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
  for (const m of ['lock', 'xmin']) console.log(`${m}: median ${med(out[m].map((r) => r.us)).toFixed(2)} µs, ${med(out[m].map((r) => r.wal)).toFixed(0)} B WAL a message`);
  await c.end(); await pg.stop(); fs.rmSync(dir, { recursive: true, force: true });
})().catch((e) => { console.error(e); process.exit(1); });
