// 0219 micro-bench (0215's, with 0219's statement as V2): the status group commit's recipient statement (runner.consumers.ts applyStatuses), on a table shaped
// as campaigns.recipient after 0209 (its five indexes, none naming state, status or requested_at), for the carrier path:
// the answer (0 -> 3), then `sent`, then `delivered`, each in its own transaction of B rows. Backend CPU (/proc, 10 ms
// ticks) and WAL a row per phase, and the phase's heap-only updates. One session: pruning is never held back here, so
// the heap-only shares are an upper bound; the send bench gives the real ones.
//   V0 main's statement (a FOR UPDATE of each row, then the update); V2 0219's first version (hash and merge joins and
//   sequential scans off, a probe an item); V3 0219's patch (sequential scans off, the recipients read by message_uuid =
//   ANY without a lock in key order, each updated through the primary key, RETURNING old.status). messageUuids are md5s of
//   the ordinal (not in key order, as real ones); the first group of each status phase runs under EXPLAIN (ANALYZE, BUFFERS).
// From a built tree: node scripts/build.mjs --server-only && node docs/decisions/patches/0219-status-statement-micro.js 40000 3 V0,V2,V3 30
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startEmbeddedPostgres } = require(path.resolve('dist/libs/platform/src/index.js'));
const { Client } = require(require.resolve('pg', { paths: [process.cwd()] }));
const N = Number(process.argv[2] ?? 40000), ROUNDS = Number(process.argv[3] ?? 3);
const VARIANTS = (process.argv[4] ?? 'V0,V2').split(',');
const FF = Number(process.argv[5] ?? 50);
const B = Number(process.env.GROUP ?? 500);
const cpu = (pid) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10000; }; // µs (100 Hz)
const RANK = { sent: 1, delivered: 2, undelivered: 2, sent_failed: 2, no_routes: 2, rejected: 2 };
const rankCase = `coalesce((CASE old.status ${Object.entries(RANK).map(([st, k]) => `WHEN '${st}' THEN ${k}`).join(' ')} END), 0)`;
const rankOf = (col) => `coalesce((CASE ${col} ${Object.entries(RANK).map(([st, k]) => `WHEN '${st}' THEN ${k}`).join(' ')} END), 0)`;
const SETTINGS = `SELECT set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true), set_config('enable_seqscan', 'off', true)`;
const SEQ_OFF = `SELECT set_config('enable_seqscan', 'off', true)`;
const STATEMENTS = {
  V3: [SEQ_OFF, `WITH t AS (SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::text[], $5::int[]) AS t(uuid, campaign, account, status, rank)),
            k AS MATERIALIZED (SELECT r.campaign_id, r.ordinal, t.status AS next, t.rank FROM r JOIN t ON r.message_uuid = t.uuid AND r.campaign_id = t.campaign AND r.account_id = t.account
                     WHERE r.message_uuid = ANY($1::uuid[]) AND ${rankOf('r.status')} < t.rank ORDER BY r.campaign_id, r.ordinal)
       UPDATE r SET status = k.next FROM k
        WHERE r.campaign_id = k.campaign_id AND r.ordinal = k.ordinal AND ${rankOf('r.status')} < k.rank
       RETURNING r.campaign_id::text, r.account_id::text, r.message_uuid::text AS uuid, old.status AS old, k.next AS status, r.variant_id::text, r.sender_id::text`],
  V2: [SETTINGS, `WITH t AS (SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::text[], $5::int[]) AS t(uuid, campaign, account, status, rank)),
            k AS MATERIALIZED (SELECT r.campaign_id, r.ordinal, t.status AS next, t.rank FROM r JOIN t ON r.message_uuid = t.uuid AND r.campaign_id = t.campaign AND r.account_id = t.account
                     WHERE ${rankOf('r.status')} < t.rank ORDER BY r.campaign_id, r.ordinal)
       UPDATE r SET status = k.next FROM k
        WHERE r.campaign_id = k.campaign_id AND r.ordinal = k.ordinal AND ${rankOf('r.status')} < k.rank
       RETURNING r.campaign_id::text, r.account_id::text, r.message_uuid::text AS uuid, old.status AS old, k.next AS status, r.variant_id::text, r.sender_id::text`],
  V0: `WITH t AS (SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::text[], $5::int[]) AS t(uuid, campaign, account, status, rank)),
            old AS (SELECT r.campaign_id, r.ordinal, r.status, t.status AS next, t.rank FROM r JOIN t ON r.message_uuid = t.uuid AND r.campaign_id = t.campaign AND r.account_id = t.account
                     WHERE r.message_uuid = ANY($1::uuid[]) ORDER BY r.campaign_id, r.ordinal FOR UPDATE OF r)
       UPDATE r SET status = old.next FROM old
        WHERE r.campaign_id = old.campaign_id AND r.ordinal = old.ordinal AND ${rankCase} < old.rank
       RETURNING r.campaign_id::text, r.account_id::text, r.message_uuid::text AS uuid, old.status AS old, old.next AS status, r.variant_id::text, r.sender_id::text`,
  V1: `WITH t AS (SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::text[], $5::int[]) AS t(uuid, campaign, account, status, rank)),
            old AS (SELECT r.ctid AS tid, r.status, t.status AS next, t.rank FROM r JOIN t ON r.message_uuid = t.uuid AND r.campaign_id = t.campaign AND r.account_id = t.account
                     WHERE r.message_uuid = ANY($1::uuid[]) ORDER BY r.campaign_id, r.ordinal FOR UPDATE OF r)
       UPDATE r SET status = old.next FROM old
        WHERE r.ctid = old.tid AND ${rankCase} < old.rank
       RETURNING r.campaign_id::text, r.account_id::text, r.message_uuid::text AS uuid, old.status AS old, old.next AS status, r.variant_id::text, r.sender_id::text`,
};
(async () => {
  const srv = await startEmbeddedPostgres({ dataDir: path.join(os.tmpdir(), `sb-0219-${process.pid}`), persistent: false });
  const c = new Client({ connectionString: srv.url() }); await c.connect();
  await c.query(`ALTER SYSTEM SET max_wal_size = '4GB'`); await c.query('SELECT pg_reload_conf()');
  const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
  const lsn = async () => (await c.query('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l;
  const walDiff = async (a) => Number((await c.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS d', [a])).rows[0].d);
  const hot = async () => { await c.query('SELECT pg_stat_force_next_flush()'); await c.query('SELECT 1'); return (await c.query(`SELECT n_tup_hot_upd::int AS hot, n_tup_upd::int AS upd FROM pg_stat_user_tables WHERE relname = 'r'`)).rows[0]; };
  const res = {};
  // a message's uuid is not in its ordinal's order (contact and occurrence hashed): md5 of the ordinal, as the insert writes it
  const crypto = require('node:crypto');
  const uu = (g) => { const h = crypto.createHash('md5').update(String(g)).digest('hex'); return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`; };
  for (let round = 0; round < ROUNDS; round++) for (const name of (round % 2 ? [...VARIANTS].reverse() : VARIANTS)) {
    await c.query('DROP TABLE IF EXISTS r');
    await c.query(`CREATE TABLE r (campaign_id bigint NOT NULL, ordinal integer NOT NULL, account_id bigint NOT NULL, contact_id bigint NOT NULL, occurrence smallint NOT NULL,
      message_uuid uuid NOT NULL, phone text NOT NULL, iso2 text, timezone text, variables jsonb NOT NULL DEFAULT '{}'::jsonb, state smallint NOT NULL DEFAULT 0, due_at timestamptz,
      batch_id uuid, requested_at timestamptz, links jsonb, variant_id bigint, sender_id bigint, segments smallint, price_micros bigint, reason text, status text,
      clicked boolean NOT NULL DEFAULT false, opted_out boolean NOT NULL DEFAULT false, status_asked_at timestamptz, flight_at timestamptz, PRIMARY KEY (campaign_id, ordinal)) WITH (fillfactor = ${FF})`);
    await c.query('CREATE UNIQUE INDEX r_msg ON r (message_uuid)');
    await c.query('CREATE INDEX r_number ON r (account_id, phone)');
    await c.query('CREATE INDEX r_flight ON r (campaign_id, flight_at) WHERE flight_at IS NOT NULL');
    await c.query('CREATE INDEX r_due ON r (campaign_id, due_at, ordinal) WHERE due_at IS NOT NULL');
    const w0 = await lsn(); const c0 = cpu(pid);
    await c.query(`INSERT INTO r (campaign_id, ordinal, account_id, contact_id, occurrence, message_uuid, phone, iso2, timezone, variables)
      SELECT 1, g, 7, g, 0, md5(g::text)::uuid, '+49' || (150000000 + (g * 7919) % 99999999)::text, 'DE', 'Europe/Berlin', '{"1":"Anna","2":"x"}'
        FROM generate_series(0, ${N - 1}) g`);
    (res[`${name} insert`] ??= []).push(`${((cpu(pid) - c0) / N).toFixed(1)} µs ${((await walDiff(w0)) / N).toFixed(0)} B`);
    (res[`${name} pages after insert`] ??= []).push(String((await c.query(`SELECT pg_relation_size('r') / 8192 AS p`)).rows[0].p));
    await c.query('ANALYZE r'); await c.query('CHECKPOINT');
    const phase = async (label, size, sql, args) => {
      const h0 = await hot();
      const w = await lsn(); const t0 = cpu(pid);
      let explained = '';
      for (let o = 0; o < N; o += size) {
        const ords = Array.from({ length: Math.min(size, N - o) }, (_, i) => o + i);
        await c.query('BEGIN');
        for (const s of [].concat(sql)) {
          // the first group of a status phase through EXPLAIN (ANALYZE, BUFFERS): the buffers it touched, not timed by the load
          if (o === 0 && label !== 'answer' && s.includes('$1')) {
            const plan = (await c.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${s}`, args(ords))).rows[0]['QUERY PLAN'][0];
            const bufs = (n) => (n['Shared Hit Blocks'] ?? 0) + (n['Shared Read Blocks'] ?? 0);
            explained = ` bufs ${bufs(plan.Plan) + (plan.Planning?.['Shared Hit Blocks'] ?? 0)} exec ${plan['Execution Time'].toFixed(1)} ms`;
          } else await c.query(s, s.includes('$1') ? args(ords) : []);
        }
        await c.query('COMMIT');
      }
      const us = (cpu(pid) - t0) / N, wal = (await walDiff(w)) / N;
      const h1 = await hot();
      (res[`${name} ${label}`] ??= []).push(`${us.toFixed(1)} µs ${wal.toFixed(0)} B hot ${h1.hot - h0.hot}/${h1.upd - h0.upd}${explained}`);
    };
    await phase('answer', 1000, [`SELECT count(*) FROM (SELECT 1 FROM r WHERE campaign_id = 1 AND ordinal = ANY($1::int[]) ORDER BY campaign_id, ordinal FOR UPDATE) l`,
      `UPDATE r SET state = 3, price_micros = 60000, reason = NULL, flight_at = NULL, due_at = NULL, batch_id = '00000000-0000-4000-8000-000000000001', requested_at = now(), variant_id = 10 + t.o % 2, sender_id = 20 + t.o % 3, segments = 1
        FROM unnest($1::int[]) t(o) WHERE r.campaign_id = 1 AND r.ordinal = ANY($1::int[]) AND r.ordinal = t.o AND r.state IN (0, 2)`], (o) => [o]);
    const st = (status) => (o) => { const u = o.map(uu).sort(); return [u, u.map(() => 1), u.map(() => 7), u.map(() => status), u.map(() => RANK[status])]; };
    await phase('sent', B, STATEMENTS[name], st('sent'));
    await phase('delivered', B, STATEMENTS[name], st('delivered'));
    await phase('again', B, STATEMENTS[name], st('delivered'));
    const pages = (await c.query(`SELECT pg_relation_size('r') / 8192 AS p`)).rows[0].p;
    (res[`${name} pages`] ??= []).push(String(pages));
    const chk = (await c.query(`SELECT count(*) FILTER (WHERE status = 'delivered')::int AS d FROM r`)).rows[0].d;
    if (chk !== N) throw new Error(`${name}: ${chk} delivered of ${N}`);
    console.log(round, name, JSON.stringify(Object.fromEntries(Object.entries(res).filter(([k]) => k.startsWith(name + ' ')).map(([k, v]) => [k, v[v.length - 1]]))));
  }
  console.log(JSON.stringify(res, null, 1));
  await c.end(); await srv.stop();
})().catch((e) => { console.error(e); process.exit(1); });
