// Micro-bench of docs/decisions/0193 (helper pgrows): the PostgreSQL backend's CPU (from /proc, so PostgreSQL must run
// on this machine) and WAL a row of
//  - streams' status projector UPDATE (its statement, 1,000 rows a statement) over a copy of streams.message, by
//    fillfactor (FF), with or without message_undispatched_idx (PARTIAL=0/1); SIDE=1: the status as an insert into
//    a narrow table of its own instead; STEADY=1: the heap a message after VACUUM and as many messages again; FLOOR=1: the sweeper
//    index without predicate and a sweep reading every message once;
//  - accounts' usage claims (processed_events, one row a message vs one a batch);
//  - the ledger's entry insert: ON CONFLICT vs an anti-join (ledger), and without each secondary index (ledgeridx);
//    its whole statement vs the insert alone vs `given` read once (ledgerstmt; MODES=statement,lean,insert,...).
// Usage (node_modules of the repository on the path; any PostgreSQL 18, e.g. one from startEmbeddedPostgres):
//   DATABASE_URL=postgres://... N=40000 FF=50 PARTIAL=0 node docs/decisions/patches/0193-row-writes-micro.js status
//   DATABASE_URL=... node docs/decisions/patches/0193-row-writes-micro.js claims | ledger | ledgeridx | ledgerstmt
const { Client } = require('pg');
const fs = require('fs');
const crypto = require('crypto');
const N = Number(process.env.N ?? 40000), B = 1000;
const cpu = (pid) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10_000; }; // µs (100 Hz)
async function main() {
  const c = new Client({ connectionString: process.env.DATABASE_URL }); await c.connect();
  const [{ pid }] = (await c.query('SELECT pg_backend_pid() AS pid')).rows;
  const wal = async () => (await c.query(`SELECT pg_current_wal_insert_lsn() AS l`)).rows[0].l;
  const walDiff = async (a, b) => Number((await c.query(`SELECT pg_wal_lsn_diff($1, $2) AS d`, [b, a])).rows[0].d);
  const measure = async (label, rows, fn) => {
    await c.query('CHECKPOINT');
    const w0 = await wal(); const c0 = cpu(pid); const t0 = process.hrtime.bigint();
    await fn();
    const t1 = process.hrtime.bigint(); const c1 = cpu(pid); const w1 = await wal();
    console.log(`${label.padEnd(58)} cpu ${((c1 - c0) / rows).toFixed(1).padStart(6)} µs/row  wall ${(Number(t1 - t0) / 1000 / rows).toFixed(1).padStart(6)} µs/row  WAL ${(await walDiff(w0, w1) / rows).toFixed(0).padStart(5)} B/row`);
  };
  const variant = process.argv[2];
  if (variant.startsWith('status')) {
    const ff = Number(process.env.FF ?? 100), keepPartial = process.env.PARTIAL !== '0';
    await c.query(`DROP SCHEMA IF EXISTS mb CASCADE; CREATE SCHEMA mb`);
    await c.query(`CREATE TABLE mb.message (uuid uuid PRIMARY KEY, account_id bigint NOT NULL, stream_id bigint NOT NULL, campaign_id bigint, sender text NOT NULL,
      destination text NOT NULL, iso2 text, text text NOT NULL, encoding text, segments integer NOT NULL, price_micros bigint NOT NULL, currency text NOT NULL,
      status text NOT NULL DEFAULT 'accepted', outgoing_status text, error text, demo boolean NOT NULL DEFAULT false, refunded_micros bigint NOT NULL DEFAULT 0,
      sent_at timestamptz, delivered_at timestamptz, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, reconciled_at timestamptz) WITH (fillfactor = ${ff})`);
    await c.query(`CREATE INDEX ON mb.message (stream_id, created_at)`);
    await c.query(`CREATE INDEX ON mb.message (account_id, created_at, uuid) INCLUDE (price_micros, refunded_micros, currency)`);
    if (keepPartial) await c.query(`CREATE INDEX ON mb.message ((coalesce(reconciled_at, created_at))) WHERE status = 'accepted'`);
    // FLOOR=1: the sweeper design of 0193 (What remains): the same key without the predicate
    if (process.env.FLOOR === '1') await c.query(`CREATE INDEX message_sweep_idx ON mb.message ((coalesce(reconciled_at, created_at)))`);
    // a campaign's uuids as the bench derives them (random here: production's derived v5-style ids)
    const uuids = Array.from({ length: N }, () => crypto.randomUUID());
    await measure(`insert (ff ${ff}, partial ${keepPartial})`, N, async () => {
      for (let i = 0; i < N; i += B) {
        const u = uuids.slice(i, i + B);
        await c.query(`INSERT INTO mb.message (uuid, account_id, stream_id, campaign_id, sender, destination, iso2, text, encoding, segments, price_micros, currency, status, created_at, updated_at)
          SELECT u, 7, 3, 11, 'SHOP', '+4915112345' || lpad(o::text, 4, '0'), 'DE', 'Hi Name' || o || ', the spring sale starts today!', 'gsm7', 1, 50000, 'EUR', 'accepted', now(), now()
          FROM unnest($1::uuid[]) WITH ORDINALITY AS t(u, o)`, [u]);
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
    const now = new Date();
    const h0 = (await c.query(`SELECT n_tup_hot_upd FROM pg_stat_user_tables WHERE relid = 'mb.message'::regclass`)).rows[0];
    await measure(`status update (ff ${ff}, partial ${keepPartial})`, N, async () => {
      for (let i = 0; i < N; i += B) {
        const u = uuids.slice(i, i + B); const k = u.length;
        await c.query(upd, [u, Array(k).fill('7'), Array(k).fill('delivered'), Array(k).fill('DELIVRD'), Array(k).fill(null), Array(k).fill(now), Array(k).fill(now), Array(k).fill(now), Array(k).fill(2)]);
      }
    });
    await c.query('SELECT pg_stat_force_next_flush()');
    const st = (await c.query(`SELECT n_tup_upd, n_tup_hot_upd, pg_relation_size('mb.message') AS heap FROM pg_stat_user_tables WHERE relid = 'mb.message'::regclass`)).rows[0];
    console.log(`   updates ${st.n_tup_upd}, HOT ${st.n_tup_hot_upd}; heap ${(st.heap / N).toFixed(0)} B/row`);
    if (process.env.FLOOR === '1') {
      // a sweep over every message above the floor (all delivered now): what reading each message once costs
      await c.query('VACUUM mb.message');
      const plan = (await c.query(`EXPLAIN SELECT uuid FROM mb.message WHERE coalesce(reconciled_at, created_at) > $1 AND coalesce(reconciled_at, created_at) <= $2 AND status = 'accepted' ORDER BY coalesce(reconciled_at, created_at) LIMIT 1000`, [new Date(0), new Date()])).rows.map((r) => r['QUERY PLAN']).join(' | ');
      console.log(`   sweep plan: ${plan.slice(0, 160)}`);
      await measure('a floor sweep reading every message once', N, async () => {
        const r = await c.query(`SELECT uuid FROM mb.message WHERE coalesce(reconciled_at, created_at) > $1 AND coalesce(reconciled_at, created_at) <= $2 AND status = 'accepted' ORDER BY coalesce(reconciled_at, created_at) LIMIT 1000`, [new Date(0), new Date()]);
        if (r.rows.length) throw new Error('expected none still accepted');
      });
    }
    if (process.env.STEADY === '1') {
      // steady state: vacuum (the dead versions' space goes to the free space map), then as many messages again
      await c.query('VACUUM mb.message');
      const more = Array.from({ length: N }, () => crypto.randomUUID());
      for (let i = 0; i < N; i += B) {
        await c.query(`INSERT INTO mb.message (uuid, account_id, stream_id, campaign_id, sender, destination, iso2, text, encoding, segments, price_micros, currency, status, created_at, updated_at)
          SELECT u, 7, 3, 11, 'SHOP', '+4915112345' || lpad(o::text, 4, '0'), 'DE', 'Hi Name' || o || ', the spring sale starts today!', 'gsm7', 1, 50000, 'EUR', 'accepted', now(), now()
          FROM unnest($1::uuid[]) WITH ORDINALITY AS t(u, o)`, [more.slice(i, i + B)]);
      }
      const h = (await c.query(`SELECT pg_relation_size('mb.message') AS heap`)).rows[0];
      console.log(`   after VACUUM and ${N} more messages: heap ${(h.heap / (2 * N)).toFixed(0)} B a message`);
    }
    if (process.env.SIDE === '1') {
      // the mutable status in a narrow table of its own (no index but its key): one insert a message
      await c.query(`CREATE TABLE mb.message_status (uuid uuid PRIMARY KEY, account_id bigint NOT NULL, status text NOT NULL, outgoing_status text, error text,
        sent_at timestamptz, delivered_at timestamptz, updated_at timestamptz NOT NULL)`);
      await measure('status as a row of a side table (insert)', N, async () => {
        for (let i = 0; i < N; i += B) {
          const u = uuids.slice(i, i + B); const k = u.length;
          await c.query(`INSERT INTO mb.message_status (uuid, account_id, status, outgoing_status, error, sent_at, delivered_at, updated_at)
            SELECT t.uuid, t.account_id, t.status, t.outgoing, t.error, t.sent_at, t.delivered_at, t.occurred_at
              FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::timestamptz[], $8::timestamptz[]) AS t(uuid, account_id, status, outgoing, error, sent_at, delivered_at, occurred_at)
            ON CONFLICT (uuid) DO NOTHING RETURNING uuid`, [u, Array(k).fill('7'), Array(k).fill('delivered'), Array(k).fill('DELIVRD'), Array(k).fill(null), Array(k).fill(now), Array(k).fill(now), Array(k).fill(now)]);
        }
      });
    }
  }
  if (variant === 'claims') {
    await c.query(`DROP SCHEMA IF EXISTS mc CASCADE; CREATE SCHEMA mc; CREATE TABLE mc.processed_events (consumer text NOT NULL, event_id uuid NOT NULL, processed_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (consumer, event_id))`);
    const ids = Array.from({ length: N }, () => crypto.randomUUID());
    await measure('usage claims: processed_events, one row a message', N, async () => {
      for (let i = 0; i < N; i += B) await c.query(`INSERT INTO mc.processed_events (consumer, event_id) SELECT $1, id FROM unnest($2::uuid[]) AS t(id) ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id`, ['accounts.daily-usage', ids.slice(i, i + B)]);
    });
    await measure('usage claims: one row a batch of 1,000', N, async () => {
      for (let i = 0; i < N; i += B) await c.query(`INSERT INTO mc.processed_events (consumer, event_id) SELECT $1, id FROM unnest($2::uuid[]) AS t(id) ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id`, ['accounts.daily-usage', [crypto.randomUUID()]]);
    });
  }
  if (variant === 'ledgeridx') {
    // the ledger's insert (ON CONFLICT on its source key) with each of its other indexes left out: what each costs a row
    for (const mode of ['all', 'nopkey', 'noaccountidx', 'all', 'nopkey', 'noaccountidx']) {
      await c.query(`DROP SCHEMA IF EXISTS ml CASCADE; CREATE SCHEMA ml; CREATE TABLE ml.balance_entry (id bigserial ${mode === 'nopkey' ? '' : 'PRIMARY KEY'}, account_id bigint NOT NULL, kind text NOT NULL, source_id text NOT NULL,
        amount_micros bigint NOT NULL, currency text NOT NULL, balance_after_micros bigint NOT NULL, reason text NOT NULL DEFAULT '', created_by bigint, created_at timestamptz NOT NULL DEFAULT now());
        CREATE UNIQUE INDEX ON ml.balance_entry (account_id, kind, source_id); ${mode === 'noaccountidx' ? '' : 'CREATE INDEX ON ml.balance_entry (account_id, id DESC)'}`);
      const ids = Array.from({ length: N }, () => crypto.randomUUID());
      const ins = `INSERT INTO ml.balance_entry (account_id, kind, source_id, amount_micros, currency, balance_after_micros, reason) SELECT 7, 'charge', s, -50000, 'EUR', 0, 'message' FROM unnest($1::text[]) WITH ORDINALITY AS t(s, n) ORDER BY n ON CONFLICT (account_id, kind, source_id) DO NOTHING RETURNING id`;
      await measure(`ledger entries, indexes: ${mode}`, N, async () => { for (let i = 0; i < N; i += B) await c.query(ins, [ids.slice(i, i + B)]); });
    }
  }
  if (variant === 'ledgerstmt') {
    // the ledger's whole statement (ledger.repository.ts applyMany, one account, 1,000 charges a statement) against its
    // entry insert alone: what the statement's own parts (lock, window sum, sums, balance update, answer) cost a row
    for (const mode of (process.env.MODES ?? 'statement,insert,statement,insert').split(',')) {
      await c.query(`DROP SCHEMA IF EXISTS ml CASCADE; CREATE SCHEMA ml; CREATE TABLE ml.balance_entry (id bigserial PRIMARY KEY, account_id bigint NOT NULL, kind text NOT NULL, source_id text NOT NULL,
        amount_micros bigint NOT NULL, currency text NOT NULL, balance_after_micros bigint NOT NULL, reason text NOT NULL DEFAULT '', created_by bigint, created_at timestamptz NOT NULL DEFAULT now());
        CREATE UNIQUE INDEX ON ml.balance_entry (account_id, kind, source_id); CREATE INDEX ON ml.balance_entry (account_id, id DESC);
        CREATE TABLE ml.customer (id bigint PRIMARY KEY, balance_micros bigint NOT NULL, updated_at timestamptz NOT NULL DEFAULT now()); INSERT INTO ml.customer VALUES (7, 1000000000000)`);
      const ids = Array.from({ length: N }, () => crypto.randomUUID());
      const stmt = `WITH locked AS MATERIALIZED (
         SELECT id, balance_micros FROM ml.customer WHERE id = ANY($8::bigint[]) ORDER BY id FOR NO KEY UPDATE
       ), given AS (
         SELECT t.*, l.balance_micros + sum(t.amount_micros) OVER (PARTITION BY t.account_id ORDER BY t.n) AS after
           FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::bigint[])
                  WITH ORDINALITY AS t(account_id, kind, source_id, amount_micros, currency, reason, created_by, n)
           JOIN locked l ON l.id = t.account_id
       ), ins AS (
         INSERT INTO ml.balance_entry (account_id, kind, source_id, amount_micros, currency, balance_after_micros, reason, created_by)
         SELECT account_id, kind, source_id, amount_micros, currency, after, reason, created_by FROM given ORDER BY n
         ON CONFLICT (account_id, kind, source_id) DO NOTHING
         RETURNING id, account_id, kind, currency, amount_micros
       ), sums AS (
         SELECT account_id, count(*) AS n, sum(amount_micros) AS amount, min(id) AS min_id, max(id) AS max_id FROM ins GROUP BY account_id
       ), moved AS (
         UPDATE ml.customer c SET balance_micros = c.balance_micros + s.amount, updated_at = now() FROM sums s WHERE c.id = s.account_id
         RETURNING c.id, c.balance_micros
       )
       SELECT l.id::text AS account_id, coalesce(s.n, 0)::int AS inserted, g.n::int AS given, l.balance_micros::text AS start,
              mv.balance_micros::text AS balance, s.min_id::text AS min_id, s.max_id::text AS max_id, i.kind, i.currency
         FROM locked l
         JOIN (SELECT account_id, count(*) AS n FROM given GROUP BY account_id) g ON g.account_id = l.id
         LEFT JOIN sums s ON s.account_id = l.id
         LEFT JOIN moved mv ON mv.id = l.id
         LEFT JOIN ins i ON i.id = s.max_id`;
      const ins = `INSERT INTO ml.balance_entry (account_id, kind, source_id, amount_micros, currency, balance_after_micros, reason, created_by)
         SELECT account_id, kind, source_id, amount_micros, currency, 0, reason, created_by
           FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::bigint[]) WITH ORDINALITY AS t(account_id, kind, source_id, amount_micros, currency, reason, created_by, n)
          ORDER BY n ON CONFLICT (account_id, kind, source_id) DO NOTHING`;
      // `given` read once (the count of entries given per account known to the caller): no materialized CTE
      const lean = stmt.replace(`JOIN (SELECT account_id, count(*) AS n FROM given GROUP BY account_id) g ON g.account_id = l.id`, '').replace('g.n::int AS given, ', '');
      await measure(`ledger: ${mode === 'statement' ? 'the whole statement' : mode === 'lean' ? 'the statement, given read once' : 'its entry insert alone'}`, N, async () => {
        for (let i = 0; i < N; i += B) {
          const u = ids.slice(i, i + B); const k = u.length;
          const params = [Array(k).fill('7'), Array(k).fill('charge'), u, Array(k).fill('-50000'), Array(k).fill('EUR'), Array(k).fill('message'), Array(k).fill(null)];
          await c.query(mode === 'statement' ? stmt : mode === 'lean' ? lean : ins, mode === 'insert' ? params : [...params, ['7']]);
        }
      });
    }
  }
  if (variant === 'ledger') {
    for (const mode of ['onconflict', 'antijoin', 'onconflict', 'antijoin']) {
      await c.query(`DROP SCHEMA IF EXISTS ml CASCADE; CREATE SCHEMA ml; CREATE TABLE ml.balance_entry (id bigserial PRIMARY KEY, account_id bigint NOT NULL, kind text NOT NULL, source_id text NOT NULL,
        amount_micros bigint NOT NULL, currency text NOT NULL, balance_after_micros bigint NOT NULL, reason text NOT NULL DEFAULT '', created_by bigint, created_at timestamptz NOT NULL DEFAULT now());
        CREATE UNIQUE INDEX ON ml.balance_entry (account_id, kind, source_id); CREATE INDEX ON ml.balance_entry (account_id, id DESC)`);
      const ids = Array.from({ length: N }, () => crypto.randomUUID());
      const ins = mode === 'onconflict'
        ? `INSERT INTO ml.balance_entry (account_id, kind, source_id, amount_micros, currency, balance_after_micros, reason) SELECT 7, 'charge', s, -50000, 'EUR', 0, 'message' FROM unnest($1::text[]) WITH ORDINALITY AS t(s, n) ORDER BY n ON CONFLICT (account_id, kind, source_id) DO NOTHING RETURNING id`
        : `INSERT INTO ml.balance_entry (account_id, kind, source_id, amount_micros, currency, balance_after_micros, reason) SELECT 7, 'charge', s, -50000, 'EUR', 0, 'message' FROM unnest($1::text[]) WITH ORDINALITY AS t(s, n) WHERE NOT EXISTS (SELECT 1 FROM ml.balance_entry e WHERE e.account_id = 7 AND e.kind = 'charge' AND e.source_id = t.s) ORDER BY n RETURNING id`;
      await measure(`ledger entries: ${mode}`, N, async () => { for (let i = 0; i < N; i += B) await c.query(ins, [ids.slice(i, i + B)]); });
    }
  }
  await c.end();
}
main().catch((e) => { console.error(e); process.exit(1); });
