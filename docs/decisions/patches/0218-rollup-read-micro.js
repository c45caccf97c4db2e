// 0218: stats' rollup read alone, the read of 0205 (a row for every slot: defaults for a new message, its
// acceptance's zone, hour and day by to_char) against 0218's (found states only, the accounts' zones as rows, the
// buckets computed in node). A table shaped like stats.message_state (fillfactor 40) with 200,000 states and
// stats.account (Europe/Berlin); batches of 1,500 messages as the campaign bench has them: a campaign's acceptances
// (new messages) and their receipts (known states). Backend CPU from /proc/<pid>/schedstat, client CPU
// (process.cpuUsage: node-postgres reading the rows, and for 0218 the buckets in node) a message, named statements (the
// generic plan), alternating turns. Run from the repository root after `node scripts/build.mjs --server-only`:
// node docs/decisions/patches/0218-rollup-read-micro.js [turns=6]
const fs = require('fs'); const os = require('os'); const path = require('path');
const { startEmbeddedPostgres } = require(path.resolve('dist/libs/platform/src/database/embedded-postgres.js'));
const { hourDayAt, isoInstant } = require(path.resolve('dist/services/stats/src/consumers/time-buckets.js'));
const { Client } = require('pg');
const iso = (col) => `to_char((${col}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const OLD = `WITH t AS (SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::timestamptz[]) WITH ORDINALITY AS t(u, a, at, o)),
            s AS (SELECT *, xmin AS x FROM stats.message_state WHERE message_uuid = ANY($1::uuid[]))
       SELECT t.o::int - 1 AS o, t.u::text AS message_uuid, s.message_uuid IS NOT NULL AS found, s.x::text AS x, coalesce(s.account_id, t.a)::text AS account_id, s.stream_id::text, coalesce(s.sender, '') AS sender,
              coalesce(s.iso2, '') AS iso2, coalesce(s.status, '') AS status, coalesce(s.rank, -1) AS rank, ${iso('s.accepted_at')} AS accepted_at, ${iso('s.hour_bucket')} AS hour_bucket,
              s.day_bucket::text AS day_bucket, coalesce(s.segments, 0) AS segments, coalesce(s.price_micros, 0)::text AS price_micros, coalesce(s.refunded_micros, 0)::text AS refunded_micros,
              coalesce(s.currency, '') AS currency, s.campaign_id::text, s.variant_id::text, s.destination,
              ${iso('t.at')} AS new_at, ${iso("t.at - (l.local - date_trunc('hour', l.local))")} AS new_hour, l.local::date::text AS new_day
         FROM t LEFT JOIN s ON s.message_uuid = t.u
         LEFT JOIN stats.account a ON a.account_id = coalesce(s.account_id, t.a)
         CROSS JOIN LATERAL (SELECT t.at AT TIME ZONE coalesce(a.time_zone, 'UTC') AS local) l`;
const NEW = `WITH s AS (SELECT t.o, m.*, m.xmin AS x FROM unnest($1::uuid[]) WITH ORDINALITY AS t(u, o) JOIN stats.message_state m ON m.message_uuid = t.u WHERE m.message_uuid = ANY($1::uuid[]))
       SELECT s.o::int - 1 AS o, s.x::text AS x, s.account_id::text AS account_id, s.stream_id::text AS stream_id, s.sender, s.iso2, s.status, s.rank,
              ${iso('s.accepted_at')} AS accepted_at, ${iso('s.hour_bucket')} AS hour_bucket, s.day_bucket::text AS day_bucket, s.segments,
              s.price_micros::text AS price_micros, s.refunded_micros::text AS refunded_micros, s.currency, s.campaign_id::text AS campaign_id,
              s.variant_id::text AS variant_id, s.destination, NULL::text AS tz
         FROM s
       UNION ALL
       SELECT -1, NULL, a.account_id::text, NULL, '', '', '', 0, NULL, NULL, NULL, 0, '0', '0', '', NULL, NULL, NULL, a.time_zone
         FROM stats.account a WHERE a.account_id = ANY($2::bigint[] || ARRAY(SELECT account_id FROM s))
       UNION ALL
       SELECT -2 - p.k, NULL, '', NULL, '', '', '', 0, ${iso('p.at')}, NULL, NULL, 0, '0', '0', '', NULL, NULL, NULL, NULL
         FROM unnest($3::int[], $4::timestamptz[]) AS p(k, at)`;
(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-')); fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  const c = new Client({ connectionString: pg.localUrl() }); await c.connect();
  await c.query(`CREATE SCHEMA stats`);
  await c.query(`CREATE TABLE stats.account (account_id bigint PRIMARY KEY, name text NOT NULL DEFAULT '', currency text NOT NULL DEFAULT 'EUR', time_zone text NOT NULL DEFAULT 'UTC', updated_at timestamptz NOT NULL DEFAULT now())`);
  await c.query(`INSERT INTO stats.account (account_id, time_zone) VALUES (1, 'Europe/Berlin')`);
  await c.query(`CREATE TABLE stats.message_state (message_uuid uuid PRIMARY KEY, account_id bigint NOT NULL, stream_id bigint, sender text NOT NULL DEFAULT '', iso2 text NOT NULL DEFAULT '',
    status text NOT NULL DEFAULT '', rank smallint NOT NULL DEFAULT -1, accepted_at timestamptz, hour_bucket timestamptz, day_bucket date, segments int NOT NULL DEFAULT 0, price_micros bigint NOT NULL DEFAULT 0,
    refunded_micros bigint NOT NULL DEFAULT 0, currency text NOT NULL DEFAULT '', campaign_id bigint, variant_id bigint, destination text) WITH (fillfactor = 40)`);
  const N = 1500; const KNOWN = 200_000;
  await c.query(`INSERT INTO stats.message_state SELECT gen_random_uuid(), 1, 2, 'SHOP', 'DE', 'sent', 1, now(), date_trunc('hour', now()), current_date, 1, 40000, 0, 'EUR', 3, 4, '+4915110000000' FROM generate_series(1, $1)`, [KNOWN]);
  await c.query('VACUUM ANALYZE stats.message_state');
  const known = (await c.query('SELECT message_uuid::text AS u FROM stats.message_state ORDER BY random()')).rows.map((r) => r.u);
  const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
  const cpu = () => Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  const fresh = () => Array.from({ length: N }, () => require('crypto').randomUUID());
  let next = 0;
  const at = (i) => new Date(Date.UTC(2026, 9, 25, 0, 30) + i * 7).toISOString();
  function params(mode, uuids) {
    const ats = uuids.map((_, i) => at(i));
    if (mode === 'old') return [`{${uuids.join(',')}}`, `{${uuids.map(() => 1).join(',')}}`, `{${ats.map((a) => `"${a}"`).join(',')}}`];
    return [`{${uuids.join(',')}}`, '{1}', '{}', '{}'];
  }
  function consume(mode, rows, uuids) {
    // what node does with the rows besides the fold: 0218 computes the acceptances' buckets
    if (mode === 'old') { let n = 0; for (const r of rows) if (r.new_hour) n++; return n; }
    const zones = new Map(); for (const r of rows) if (r.o === -1) zones.set(r.account_id, r.tz);
    let n = 0; for (let i = 0; i < uuids.length; i++) { const ms = isoInstant(at(i)); if (hourDayAt(zones.get('1') ?? 'UTC', ms).hour) n++; }
    return n;
  }
  async function turn(mode, kind, batches) {
    let back = 0; let client = 0;
    for (let b = 0; b < batches; b++) {
      let uuids;
      if (kind === 'accepted') uuids = fresh();
      else { if (next + N > known.length) next = 0; uuids = known.slice(next, next + N); next += N; }
      const p = params(mode, uuids);
      const t0 = cpu(); const c0 = process.cpuUsage();
      const rows = (await c.query({ name: `r-${mode}`, text: mode === 'old' ? OLD : NEW, values: p })).rows;
      consume(mode, rows, uuids);
      const cd = process.cpuUsage(c0); back += cpu() - t0; client += cd.user + cd.system;
    }
    return { pg: back / batches / N / 1000, node: client / batches / N };
  }
  for (const m of ['old', 'new']) for (const k of ['accepted', 'known']) await turn(m, k, 10);
  const turns = Number(process.argv[2] ?? 6);
  const out = {};
  for (let i = 0; i < turns; i++) {
    for (const k of ['accepted', 'known']) {
      for (const m of i % 2 ? ['new', 'old'] : ['old', 'new']) {
        const r = await turn(m, k, 20); (out[`${k} ${m}`] ??= []).push(r);
        console.log(`turn ${i} ${k} ${m}: PostgreSQL ${r.pg.toFixed(2)} µs, node ${r.node.toFixed(2)} µs a message`);
      }
    }
  }
  const med = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
  for (const [k, v] of Object.entries(out)) console.log(`${k}: PostgreSQL median ${med(v.map((r) => r.pg)).toFixed(2)} (${Math.min(...v.map((r) => r.pg)).toFixed(2)}–${Math.max(...v.map((r) => r.pg)).toFixed(2)}) µs, node median ${med(v.map((r) => r.node)).toFixed(2)} (${Math.min(...v.map((r) => r.node)).toFixed(2)}–${Math.max(...v.map((r) => r.node)).toFixed(2)}) µs a message`);
  await c.end(); await pg.stop(); fs.rmSync(dir, { recursive: true, force: true });
})().catch((e) => { console.error(e); process.exit(1); });
