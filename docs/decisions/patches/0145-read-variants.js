// docs/decisions/0145: run from a built tree (node scripts/build.mjs --server-only), e.g. node docs/decisions/patches/0145-read-variants.js
// Backend CPU from /proc (10 ms ticks) of one connection to an embedded PostgreSQL, µs a row.
const { benchDatabase } = require(require('path').resolve('dist/bench/bench-database.js'));
const { Client } = require(require('path').resolve('node_modules/pg'));
const fs = require('fs');
const iso = (col) => `to_char((${col}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
(async () => {
  const db = await benchDatabase('sb-ingest-micro-');
  const c = new Client({ connectionString: db.url }); await c.connect();
  await c.query(`CREATE SCHEMA stats; CREATE TABLE stats.account (account_id bigint PRIMARY KEY, time_zone text);  INSERT INTO stats.account VALUES (1, 'Europe/Berlin');
    CREATE TABLE stats.message_state (message_uuid uuid PRIMARY KEY, account_id bigint NOT NULL, stream_id bigint, sender text NOT NULL DEFAULT '', iso2 text NOT NULL DEFAULT '', status text NOT NULL DEFAULT '',
      rank smallint NOT NULL DEFAULT -1, accepted_at timestamptz, hour_bucket timestamptz, day_bucket date, segments integer NOT NULL DEFAULT 0, price_micros bigint NOT NULL DEFAULT 0,
      refunded_micros bigint NOT NULL DEFAULT 0, currency text NOT NULL DEFAULT '', campaign_id bigint, variant_id bigint, destination text) WITH (fillfactor = 80);
    INSERT INTO stats.message_state SELECT gen_random_uuid(), 1, i % 5, 'Sender' || (i % 4), 'DE', 'accepted', 0, now() - i * interval '17 minutes', date_trunc('hour', now() - i * interval '17 minutes'), (now() - i * interval '17 minutes')::date, 1, 50000, 0, 'EUR', NULL, NULL, '+4915100000000' FROM generate_series(1, 20000) i;
`); await c.query('VACUUM ANALYZE stats.message_state'); await c.query('VACUUM ANALYZE stats.account');
  const [{ pid }] = (await c.query('SELECT pg_backend_pid() AS pid')).rows;
  const cpu = () => { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
  const u = (await c.query(`SELECT message_uuid::text AS u FROM stats.message_state ORDER BY random() LIMIT 3000`)).rows.map(r => r.u);
  const params = [`{${u.join(',')}}`, `{${u.map(() => 1).join(',')}}`, `{${u.map(() => 'NULL').join(',')}}`];
  const cols = (f) => `t.o::int - 1 AS o, t.u::text AS message_uuid, s.message_uuid IS NOT NULL AS found, coalesce(s.account_id, t.a)::text AS account_id, s.stream_id::text, coalesce(s.sender, '') AS sender,
              coalesce(s.iso2, '') AS iso2, coalesce(s.status, '') AS status, coalesce(s.rank, -1) AS rank, ${f('s.accepted_at')} AS accepted_at, ${f('s.hour_bucket')} AS hour_bucket,
              s.day_bucket::text AS day_bucket, coalesce(s.segments, 0) AS segments, coalesce(s.price_micros, 0)::text AS price_micros, coalesce(s.refunded_micros, 0)::text AS refunded_micros,
              coalesce(s.currency, '') AS currency, s.campaign_id::text, s.variant_id::text, s.destination,
              ${f('t.at')} AS new_at, ${f("t.at - (l.local - date_trunc('hour', l.local))")} AS new_hour, l.local::date::text AS new_day`;
  const stmt = (sWhere, lock, f) => `WITH t AS (SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::timestamptz[]) WITH ORDINALITY AS t(u, a, at, o)),
            s AS (SELECT * FROM stats.message_state WHERE ${sWhere} ORDER BY message_uuid ${lock})
       SELECT ${cols(f)}
         FROM t LEFT JOIN s ON s.message_uuid = t.u
         LEFT JOIN stats.account a ON a.account_id = coalesce(s.account_id, t.a)
         CROSS JOIN LATERAL (SELECT t.at AT TIME ZONE coalesce(a.time_zone, 'UTC') AS local) l`;
  const V = {
    current: stmt('message_uuid IN (SELECT u FROM t)', 'FOR UPDATE', iso),
    nolock: stmt('message_uuid IN (SELECT u FROM t)', '', iso),
    notochar: stmt('message_uuid IN (SELECT u FROM t)', 'FOR UPDATE', (x) => `(${x})::text`),
    anyidx: stmt('message_uuid = ANY($1::uuid[])', 'FOR UPDATE', iso),
    bare: `SELECT * FROM stats.message_state WHERE message_uuid = ANY($1::uuid[]) ORDER BY message_uuid FOR UPDATE`,
  };
  const res = {};
  for (let r = 0; r < 6; r++) for (const [k, s] of Object.entries(V)) {
    const c0 = cpu();
    for (let j = 0; j < 5; j++) { await c.query('BEGIN'); const x = await c.query(s, k === "bare" ? params.slice(0, 1) : params); if (x.rows.length !== 3000) throw new Error(k + x.rows.length); await c.query('COMMIT'); }
    (res[k] ||= []).push(((cpu() - c0) * 1000 / 15000).toFixed(2));
  }
  for (const [k, v] of Object.entries(res)) console.log(k.padEnd(10), v.join(' '));

  await c.end(); await db.stop();
})().catch(e => { console.error(e); process.exit(1); });
