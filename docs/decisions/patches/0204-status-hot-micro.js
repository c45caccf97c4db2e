// Micro-bench of docs/decisions/0204 (helper streamshot): streams.message's status projector UPDATE, its heap-only
// (HOT) share, backend CPU (from /proc) and WAL a row, by index set and fillfactor; the floor sweep's read of every
// message once; and an older sweeper's query once the partial index is gone (the rolling upgrade's bound).
// A copy of the table and its indexes in a schema of its own on a PostgreSQL 18 this script starts (embedded).
// Usage, after `node scripts/build.mjs --server-only`:  node docs/decisions/patches/0204-status-hot-micro.js [N] [variants]
//   variants: comma list of today (partial index, fillfactor 100) | floor100 | floor85 | floor70 | floor50 (0204's index set)
const path = require('path');
const fs = require('fs');
const os = require('os');
const crypto = require('crypto');
const { Client } = require('pg');
const { startEmbeddedPostgres } = require(path.join(__dirname, '../../../dist/libs/platform/src/database/embedded-postgres.js'));
const N = Number(process.argv[2] ?? 40000), B = 1000;
const VARIANTS = (process.argv[3] ?? 'today,floor100,floor70,floor50').split(',');
const cpu = (pid) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10_000; };

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'micro-0204-'));
  fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  const c = new Client({ connectionString: pg.localUrl ? pg.localUrl() : pg.url() }); await c.connect();
  try {
    const [{ pid }] = (await c.query('SELECT pg_backend_pid() AS pid')).rows;
    const wal = async () => (await c.query(`SELECT pg_current_wal_insert_lsn() AS l`)).rows[0].l;
    const measure = async (label, rows, fn) => {
      await c.query('CHECKPOINT');
      const w0 = await wal(); const c0 = cpu(pid);
      await fn();
      const c1 = cpu(pid); const w1 = await wal();
      const d = Number((await c.query(`SELECT pg_wal_lsn_diff($1, $2) AS d`, [w1, w0])).rows[0].d);
      console.log(`  ${label.padEnd(52)} cpu ${((c1 - c0) / rows).toFixed(1).padStart(6)} µs/row  WAL ${(d / rows).toFixed(0).padStart(5)} B/row`);
    };
    const hot = async () => { await c.query('SELECT pg_stat_force_next_flush()'); return (await c.query(`SELECT n_tup_upd::int AS u, n_tup_hot_upd::int AS h FROM pg_stat_user_tables WHERE relid = 'mb.message'::regclass`)).rows[0]; };
    for (const v of VARIANTS) {
      const partial = v === 'today';
      const ff = partial ? 100 : Number(v.replace('floor', ''));
      console.log(`${v}: fillfactor ${ff}, ${partial ? 'message_undispatched_idx (partial)' : 'message_sweep_idx (no predicate)'}, ${N} messages`);
      await c.query(`DROP SCHEMA IF EXISTS mb CASCADE; CREATE SCHEMA mb`);
      await c.query(`CREATE TABLE mb.message (uuid uuid PRIMARY KEY, account_id bigint NOT NULL, stream_id bigint NOT NULL, campaign_id bigint, sender text NOT NULL,
        destination text NOT NULL, iso2 text, text text NOT NULL, encoding text, segments integer NOT NULL, price_micros bigint NOT NULL, currency text NOT NULL,
        status text NOT NULL DEFAULT 'accepted', outgoing_status text, error text, demo boolean NOT NULL DEFAULT false, refunded_micros bigint NOT NULL DEFAULT 0,
        sent_at timestamptz, delivered_at timestamptz, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, reconciled_at timestamptz) WITH (fillfactor = ${ff})`);
      await c.query(`CREATE INDEX ON mb.message (stream_id, created_at)`);
      await c.query(`CREATE INDEX ON mb.message (account_id, created_at, uuid) INCLUDE (price_micros, refunded_micros, currency)`);
      if (partial) await c.query(`CREATE INDEX ON mb.message ((coalesce(reconciled_at, created_at))) WHERE status = 'accepted'`);
      else await c.query(`CREATE INDEX ON mb.message ((coalesce(reconciled_at, created_at)), uuid)`);
      const uuids = Array.from({ length: N }, () => crypto.randomUUID());
      const t0 = Date.now();
      await measure('insert', N, async () => {
        for (let i = 0; i < N; i += B) {
          await c.query(`INSERT INTO mb.message (uuid, account_id, stream_id, campaign_id, sender, destination, iso2, text, encoding, segments, price_micros, currency, status, created_at, updated_at)
            SELECT u, 7, 3, 11, 'SHOP', '+4915112345' || lpad(o::text, 4, '0'), 'DE', 'Hi Name' || o || ', the spring sale starts today!', 'gsm7', 1, 50000, 'EUR', 'accepted',
                   $2::timestamptz + (($3::int + o) * interval '50 microseconds'), now()
            FROM unnest($1::uuid[]) WITH ORDINALITY AS t(u, o)`, [uuids.slice(i, i + B), new Date(t0), i]);
        }
      });
      await c.query('ANALYZE mb.message');
      const upd = `UPDATE mb.message m SET status = t.status, outgoing_status = coalesce(t.outgoing, m.outgoing_status), error = t.error,
                  sent_at = coalesce(t.sent_at, m.sent_at), delivered_at = coalesce(t.delivered_at, m.delivered_at), updated_at = t.occurred_at
             FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::timestamptz[], $8::timestamptz[], $9::int[])
               AS t(uuid, account_id, status, outgoing, error, sent_at, delivered_at, occurred_at, rank)
            WHERE m.uuid = ANY($1::uuid[]) AND m.uuid = t.uuid AND m.account_id = t.account_id
              AND (CASE m.status WHEN 'accepted' THEN 0 WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'sent_failed' THEN 2 WHEN 'undelivered' THEN 2 WHEN 'no_routes' THEN 2 WHEN 'rejected' THEN 2 ELSE 0 END) < t.rank
            RETURNING m.account_id::text || ':' || m.uuid::text AS key`;
      // dispatch's two statuses a message, each in batches of 1,000 in send order: sent, then delivered
      for (const [status, rank] of [['sent', 1], ['delivered', 2]]) {
        const h0 = await hot();
        const now = new Date();
        await measure(`status update: ${status}`, N, async () => {
          for (let i = 0; i < N; i += B) {
            const u = uuids.slice(i, i + B); const k = u.length;
            await c.query(upd, [u, Array(k).fill('7'), Array(k).fill(status), Array(k).fill(status === 'sent' ? 'ENROUTE' : 'DELIVRD'), Array(k).fill(null), Array(k).fill(now), Array(k).fill(status === 'delivered' ? now : null), Array(k).fill(now), Array(k).fill(rank)]);
          }
        });
        const h1 = await hot();
        console.log(`    ${status}: ${h1.u - h0.u} updates, HOT ${h1.h - h0.h} (${(((h1.h - h0.h) / (h1.u - h0.u)) * 100).toFixed(0)} %)`);
      }
      const { heap } = (await c.query(`SELECT pg_relation_size('mb.message') AS heap`)).rows[0];
      console.log(`    heap ${(heap / N).toFixed(0)} B a message`);
      await c.query('VACUUM mb.message');
      if (!partial) {
        // 0204's page read over every message (all delivered), 10,000 a statement from the floor
        let from = ['-infinity', '00000000-0000-0000-0000-000000000000'];
        await measure('floor sweep: every message read once', N, async () => {
          for (;;) {
            const r = (await c.query(`WITH page AS MATERIALIZED (
                SELECT m.uuid, coalesce(m.reconciled_at, m.created_at) AS at, m.status = 'accepted' AS accepted FROM mb.message m
                 WHERE (coalesce(m.reconciled_at, m.created_at), m.uuid) > ($1::timestamptz, $2::uuid) AND coalesce(m.reconciled_at, m.created_at) <= now()
                 ORDER BY coalesce(m.reconciled_at, m.created_at), m.uuid LIMIT 10000)
              SELECT (SELECT count(*) FROM page)::int AS read, (SELECT json_build_array(at::text, uuid::text) FROM page ORDER BY at DESC, uuid DESC LIMIT 1) AS last,
                     (SELECT count(*) FROM page WHERE accepted)::int AS due`, from)).rows[0];
            if (r.due) throw new Error('expected none accepted');
            if (!r.last) break;
            from = r.last;
            if (r.read < 10000) break;
          }
        });
        // an older sweeper during a rolling upgrade: its query with the partial index gone (none accepted: it reads to its age)
        const plan = (await c.query(`EXPLAIN SELECT uuid FROM mb.message WHERE status = 'accepted' AND coalesce(reconciled_at, created_at) <= now() ORDER BY coalesce(reconciled_at, created_at) LIMIT 1000 FOR UPDATE SKIP LOCKED`)).rows.map((r) => r['QUERY PLAN']).join(' | ');
        console.log(`    older sweeper's plan: ${plan.slice(0, 150)}`);
        await measure("older sweeper's query, no partial index", N, async () => {
          await c.query(`SELECT uuid FROM mb.message WHERE status = 'accepted' AND coalesce(reconciled_at, created_at) <= now() ORDER BY coalesce(reconciled_at, created_at) LIMIT 1000 FOR UPDATE SKIP LOCKED`);
        });
      }
    }
  } finally {
    await c.end();
    await pg.stop();
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
