// 0182 micro-bench: the recipient row's three updates (requested, the answer's lock and accepted, the status group
// commit's statement), backend CPU (/proc, 10 ms ticks) and WAL a row, per table configuration:
//   B as main; H fillfactor 70 and no status-due index (a HOT status update's upper bound); F fillfactor 70 only;
//   D no status-due index only. A table shaped as campaigns.recipient with its indexes, N rows, batches of 1,000.
// From a built tree: node scripts/build.mjs --server-only && node docs/decisions/patches/0182-recipient-updates-micro.js 20000 4 BHFD
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startEmbeddedPostgres } = require(path.resolve('dist/libs/platform/src/index.js'));
const { Client } = require(require.resolve('pg', { paths: [process.cwd()] }));
const N = Number(process.argv[2] ?? 30000), B = 1000, ROUNDS = Number(process.argv[3] ?? 3);
const cpu = (pid) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10000; }; // µs (100 Hz)
(async () => {
  const srv = await startEmbeddedPostgres({ dataDir: path.join(os.tmpdir(), `sb-0182-${process.pid}`), persistent: false });
  const c = new Client({ connectionString: srv.url() }); await c.connect();
  await c.query(`ALTER SYSTEM SET max_wal_size = '4GB'`); await c.query('SELECT pg_reload_conf()');
  const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
  const lsn = async () => (await c.query('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l;
  const walDiff = async (a) => Number((await c.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS d', [a])).rows[0].d);
  const configs = { B: { ff: 100, statusDue: true }, H: { ff: 70, statusDue: false }, F: { ff: 70, statusDue: true }, D: { ff: 100, statusDue: false } };
  const order = (process.argv[4] ?? 'BHFD').split('');
  const res = {};
  for (let round = 0; round < ROUNDS; round++) for (const name of (round % 2 ? [...order].reverse() : order)) {
    const cf = configs[name];
    await c.query('DROP TABLE IF EXISTS r');
    await c.query(`CREATE TABLE r (campaign_id bigint NOT NULL, ordinal integer NOT NULL, account_id bigint NOT NULL, contact_id bigint NOT NULL, occurrence smallint NOT NULL,
      message_uuid uuid NOT NULL, phone text NOT NULL, iso2 text, timezone text, variables jsonb NOT NULL DEFAULT '{}'::jsonb, state smallint NOT NULL DEFAULT 0, due_at timestamptz,
      batch_id uuid, requested_at timestamptz, links jsonb, variant_id bigint, sender_id bigint, segments smallint, price_micros bigint, reason text, status text,
      clicked boolean NOT NULL DEFAULT false, opted_out boolean NOT NULL DEFAULT false, status_asked_at timestamptz, PRIMARY KEY (campaign_id, ordinal)) WITH (fillfactor = ${cf.ff})`);
    await c.query('CREATE UNIQUE INDEX r_msg ON r (message_uuid)');
    await c.query('CREATE INDEX r_phone ON r (account_id, phone) WHERE state = 3');
    await c.query('CREATE INDEX r_inflight ON r (campaign_id, requested_at) WHERE state IN (1, 2)');
    await c.query('CREATE INDEX r_due ON r (campaign_id, due_at, ordinal) WHERE state = 0 AND due_at IS NOT NULL');
    if (cf.statusDue) await c.query(`CREATE INDEX r_status_due ON r ((coalesce(status_asked_at, requested_at))) WHERE state = 3 AND (status IS NULL OR status = 'sent')`);
    await c.query(`INSERT INTO r (campaign_id, ordinal, account_id, contact_id, occurrence, message_uuid, phone, iso2, timezone, variables)
      SELECT 1, g, 7, g, 0, ('00000000-0001-8000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, '+49' || (150000000 + (g * 7919) % 99999999)::text, 'DE', 'Europe/Berlin', '{"1":"Anna","2":"x"}'
        FROM generate_series(0, ${N - 1}) g`);
    await c.query('VACUUM ANALYZE r'); await c.query('CHECKPOINT');
    const phase = async (label, sql, args) => {
      const w = await lsn(); const t0 = cpu(pid);
      for (let o = 0; o < N; o += B) { const ords = Array.from({ length: B }, (_, i) => o + i); await c.query('BEGIN'); await c.query(sql, args(ords)); await c.query('COMMIT'); }
      const us = (cpu(pid) - t0) / N, wal = (await walDiff(w)) / N;
      (res[`${name} ${label}`] ??= []).push(`${us.toFixed(1)} µs ${wal.toFixed(0)} B`);
    };
    await phase('requested', `UPDATE r SET state = 2, batch_id = gen_random_uuid(), requested_at = now(), variant_id = t.o % 2, sender_id = t.o % 3, segments = 1 FROM unnest($1::int[]) t(o) WHERE r.campaign_id = 1 AND r.ordinal = ANY($1::int[]) AND r.ordinal = t.o AND r.state = 0`, (o) => [o]);
    await phase('accepted', `SELECT count(*) FROM (SELECT 1 FROM r WHERE campaign_id = 1 AND ordinal = ANY($1::int[]) ORDER BY campaign_id, ordinal FOR UPDATE) l`, (o) => [o]);
    await phase('accepted2', `UPDATE r SET state = 3, price_micros = 60000, reason = NULL FROM unnest($1::int[]) t(o) WHERE r.campaign_id = 1 AND r.ordinal = ANY($1::int[]) AND r.ordinal = t.o AND r.state IN (0, 2)`, (o) => [o]);
    const uu = (o) => o.map((g) => `00000000-0001-8000-8000-${g.toString(16).padStart(12, '0')}`);
    await phase('status', `WITH t AS (SELECT * FROM unnest($1::uuid[]) AS t(uuid)), old AS (SELECT r.campaign_id, r.ordinal, r.status FROM r JOIN t ON r.message_uuid = t.uuid WHERE r.message_uuid = ANY($1::uuid[]) ORDER BY r.campaign_id, r.ordinal FOR UPDATE OF r)
      UPDATE r SET status = 'delivered' FROM old WHERE r.campaign_id = old.campaign_id AND r.ordinal = old.ordinal AND old.status IS NULL RETURNING r.variant_id, r.sender_id`, (o) => [uu(o)]);
    await c.query('SELECT pg_stat_force_next_flush()'); await c.query('SELECT 1'); const h = (await c.query(`SELECT n_tup_hot_upd::int AS hot FROM pg_stat_user_tables WHERE relname = 'r'`)).rows[0];
    (res[`${name} hot`] ??= []).push(String(h?.hot));
    console.log(round, name, JSON.stringify(Object.fromEntries(Object.entries(res).filter(([k]) => k.startsWith(name + ' ')).map(([k, v]) => [k, v[v.length - 1]]))));
  }
  console.log(JSON.stringify(res, null, 1));
  await c.end(); await srv.stop();
})().catch((e) => { console.error(e); process.exit(1); });
