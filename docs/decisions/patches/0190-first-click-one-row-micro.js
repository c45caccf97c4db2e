// docs/decisions/0190: after `node scripts/build.mjs --server-only`, from the repository:
//   HIST=1000000 node docs/decisions/patches/0190-first-click-one-row-micro.js
// variant c: the click rows alone (no first-click decision in the group), then the decision deferred and made in bulk
// for the turn's 12,000 clicks in one statement from the click rows (the BRIN on clicked_at finds them)
// variant e: a first click's row is its recipient_click row alone, wide (the click's columns), click rows for repeats only
// in one statement from the click rows (the BRIN on clicked_at finds them)
// scratch: backend CPU (schedstat) and WAL a first click of the group statement's row writes, today's (a
// links.recipient_click row under its primary key + the links.click row) against one row (links.click alone, a unique
// partial index on (account_id, message_uuid) WHERE first deciding the first click by a speculative insert)
const { Pool } = require('pg');
const fs = require('node:fs');
const { benchDatabase } = require(require('node:path').resolve(__dirname, '../../../dist/bench/bench-database'));
const HIST = Number(process.env.HIST ?? 1_000_000), CAMP = 300_000, G = Number(process.env.G ?? 600), BATCHES = Number(process.env.BATCHES ?? 20), TURNS = Number(process.env.TURNS ?? 6);
const hex = (n, d) => n.toString(16).padStart(d, '0');
const ordered = (camp, contact) => { const c = hex(camp, 12), k = hex(contact, 15); return `${c.slice(0, 8)}-${c.slice(8)}-8${k.slice(0, 3)}-8${k.slice(3, 6)}-${k.slice(6)}000`; };
const shuffle = (a) => { for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); [a[i], a[j]] = [a[j], a[i]]; } return a; };
const cpuNs = (pid) => Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
const CLICK = (t) => `CREATE TABLE ${t} (click_id uuid NOT NULL, clicked_at timestamptz NOT NULL, account_id bigint NOT NULL, domain_id bigint NOT NULL, code bigint NOT NULL, campaign_id bigint,
  variant_id bigint, message_uuid uuid, ua_class smallint NOT NULL, preview boolean NOT NULL, first boolean NOT NULL, ip text, user_agent text)`;
(async () => {
  const db = await benchDatabase('sb-clicks5-micro-', { settings: { plan_cache_mode: 'force_generic_plan' } });
  const admin = new Pool({ connectionString: db.url, max: 1 });
  admin.on('error', () => undefined);
  try {
    await admin.query(CLICK('click_a'));
    await admin.query(CLICK('click_b'));
    await admin.query(CLICK('click_c'));
    for (const t of ['click_a', 'click_b', 'click_c']) await admin.query(`CREATE INDEX ON ${t} USING brin (clicked_at)`);
    await admin.query(`CREATE UNIQUE INDEX click_b_first ON click_b (account_id, message_uuid) WHERE first`);
    await admin.query(`CREATE TABLE rc (account_id bigint NOT NULL, message_uuid uuid NOT NULL, campaign_id bigint, variant_id bigint, domain_id bigint NOT NULL, first_click_id uuid NOT NULL, first_clicked_at timestamptz NOT NULL, PRIMARY KEY (account_id, message_uuid))`);
    // history: HIST older first clicks of 100 older campaigns (ordered keys), each with its click row
    const key = `(lpad(to_hex(c), 12, '0') || '8' || left(lpad(to_hex(k), 15, '0'), 3) || '8' || right(lpad(to_hex(k), 15, '0'), 12) || '000')::uuid`;
    const hist = `FROM generate_series(1, 100) c, generate_series(1, ${HIST / 100}) k`;
    await admin.query(`CREATE TABLE rc_c (LIKE rc INCLUDING ALL)`);
    await admin.query(`CREATE TABLE rc_e (LIKE rc INCLUDING ALL)`);
    await admin.query(`ALTER TABLE rc_e ADD COLUMN code bigint, ADD COLUMN ua_class smallint, ADD COLUMN ip text, ADD COLUMN user_agent text`);
    await admin.query(`INSERT INTO rc_e SELECT 1, ${key}, c, 1, 1, gen_random_uuid(), now() - interval '1 day', k, 1, '127.0.0.1', 'Mozilla/5.0' ${hist}`);
    await admin.query(CLICK('click_e'));
    await admin.query(`CREATE INDEX ON click_e USING brin (clicked_at)`);
    await admin.query(`INSERT INTO rc_c SELECT 1, ${key}, c, 1, 1, gen_random_uuid(), now() - interval '1 day' ${hist}`);
    await admin.query(`INSERT INTO rc SELECT 1, ${key}, c, 1, 1, gen_random_uuid(), now() - interval '1 day' ${hist}`);
    for (const t of ['click_a', 'click_b', 'click_c'])
      await admin.query(`INSERT INTO ${t} SELECT gen_random_uuid(), now() - interval '1 day', 1, 1, k, c, 1, ${key}, 1, false, true, '127.0.0.1', 'Mozilla/5.0' ${hist}`);
    await admin.query('VACUUM ANALYZE'); await admin.query('CHECKPOINT');
    const pool = new Pool({ connectionString: db.url, max: 1 });
    pool.on('error', () => undefined);
    const { rows: [{ pid }] } = await pool.query('SELECT pg_backend_pid() AS pid');
    const contacts = shuffle(Array.from({ length: CAMP }, (_, i) => i));
    const cursor = { a: 0, b: 0, c: 0, e: 0 };
    const C = `c AS (SELECT k.*, to_timestamp(k.at / 1000) AS clicked_at FROM unnest($1::uuid[], $2::uuid[], $3::float8[]) WITH ORDINALITY k(m, id, at, ord))`;
    const COLS = `click_id, clicked_at, account_id, domain_id, code, campaign_id, variant_id, message_uuid, ua_class, preview, first, ip, user_agent`;
    // today's: the recipient's row decides, the click rows marked by a hashed subplan (FLUSH_SQL's first-click part)
    const A = `WITH ${C}, firsts AS (INSERT INTO rc (account_id, message_uuid, campaign_id, variant_id, domain_id, first_click_id, first_clicked_at)
        SELECT 1, m, 1000, 1, 1, id, clicked_at FROM (SELECT DISTINCT ON (m) m, id, clicked_at FROM c ORDER BY m, clicked_at, ord) f ORDER BY 1, 2
        ON CONFLICT (account_id, message_uuid) DO NOTHING RETURNING first_click_id),
      ins AS (INSERT INTO click_a (${COLS}) SELECT id, clicked_at, 1, 1, ord, 1000, 1, m, 1, false, id IN (SELECT first_click_id FROM firsts), '127.0.0.1', 'Mozilla/5.0' FROM c)
      SELECT count(*) FROM firsts`;
    // one row: the candidates inserted as first clicks (the partial unique index decides), the rest as repeats
    const B = `WITH ${C}, firsts AS (INSERT INTO click_b (${COLS})
        SELECT id, clicked_at, 1, 1, ord, 1000, 1, m, 1, false, true, '127.0.0.1', 'Mozilla/5.0' FROM (SELECT DISTINCT ON (m) m, id, clicked_at, ord FROM c ORDER BY m, clicked_at, ord) f ORDER BY m
        ON CONFLICT (account_id, message_uuid) WHERE first DO NOTHING RETURNING click_id),
      rest AS (INSERT INTO click_b (${COLS}) SELECT id, clicked_at, 1, 1, ord, 1000, 1, m, 1, false, false, '127.0.0.1', 'Mozilla/5.0' FROM c WHERE id NOT IN (SELECT click_id FROM firsts))
      SELECT count(*) FROM firsts`;
    const CC = `WITH ${C} INSERT INTO click_c (${COLS}) SELECT id, clicked_at, 1, 1, ord, 1000, 1, m, 1, false, false, '127.0.0.1', 'Mozilla/5.0' FROM c`;
    const DEFER = `INSERT INTO rc_c (account_id, message_uuid, campaign_id, variant_id, domain_id, first_click_id, first_clicked_at)
        SELECT account_id, message_uuid, campaign_id, variant_id, domain_id, click_id, clicked_at FROM (
          SELECT DISTINCT ON (account_id, message_uuid) * FROM click_c WHERE clicked_at >= $1 AND NOT preview AND message_uuid IS NOT NULL ORDER BY account_id, message_uuid, clicked_at) f
        ORDER BY account_id, message_uuid ON CONFLICT (account_id, message_uuid) DO NOTHING`;
    const E = `WITH ${C}, firsts AS (INSERT INTO rc_e (account_id, message_uuid, campaign_id, variant_id, domain_id, first_click_id, first_clicked_at, code, ua_class, ip, user_agent)
        SELECT 1, m, 1000, 1, 1, id, clicked_at, ord, 1, '127.0.0.1', 'Mozilla/5.0' FROM (SELECT DISTINCT ON (m) m, id, clicked_at, ord FROM c ORDER BY m, clicked_at, ord) f ORDER BY 1, 2
        ON CONFLICT (account_id, message_uuid) DO NOTHING RETURNING first_click_id),
      ins AS (INSERT INTO click_e (${COLS}) SELECT id, clicked_at, 1, 1, ord, 1000, 1, m, 1, false, false, '127.0.0.1', 'Mozilla/5.0' FROM c WHERE id NOT IN (SELECT first_click_id FROM firsts))
      SELECT count(*) FROM firsts`;
    const run = async (v, sql) => {
      const since = new Date(Date.now() - 5);
      let cpu = 0, wal = 0, firsts = 0;
      for (let b = 0; b < BATCHES; b++) {
        const from = cursor[v]; cursor[v] += G;
        const ms = contacts.slice(from, from + G).map((k) => ordered(1000, k));
        const ids = ms.map(() => crypto.randomUUID());
        const at = ms.map(() => Date.now());
        const l0 = (await pool.query('SELECT pg_current_wal_insert_lsn() AS l')).rows[0].l;
        const c0 = cpuNs(pid);
        const r = await pool.query({ name: v, text: sql, values: [`{${ms.join(',')}}`, `{${ids.join(',')}}`, `{${at.join(',')}}`] });
        cpu += cpuNs(pid) - c0;
        firsts += v === 'c' ? 0 : Number(r.rows[0].count);
        wal += Number((await pool.query('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) AS d', [l0])).rows[0].d);
      }
      const n = BATCHES * G;
      if (v === 'c') {
        const l0 = (await pool.query('SELECT pg_current_wal_insert_lsn() AS l')).rows[0].l;
        const c0 = cpuNs(pid);
        const r = await pool.query({ name: 'defer', text: DEFER, values: [since] });
        const dc = cpuNs(pid) - c0;
        const dw = Number((await pool.query('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) AS d', [l0])).rows[0].d);
        console.log(`click rows alone: ${(cpu / n / 1000).toFixed(2)} µs, ${(wal / n).toFixed(0)} B; the deferred decision in bulk: ${(dc / n / 1000).toFixed(2)} µs, ${(dw / n).toFixed(0)} B a first click (firsts ${r.rowCount}/${n})`);
        return;
      }
      console.log(`${v === 'a' ? "today's (recipient_click + click)" : v === 'e' ? 'one row (recipient_click wide, click rows for repeats)' : 'one row (click, unique partial index)'}: ${(cpu / n / 1000).toFixed(2)} µs, ${(wal / n).toFixed(0)} B a first click (firsts ${firsts}/${n})`);
    };
    for (let t = 0; t < TURNS; t++) {
      const order = (process.env.VARIANTS ?? 'abce').split('');
      if (t % 2 === 1) order.reverse();
      for (const v of order) await run(v, v === 'a' ? A : v === 'b' ? B : v === 'e' ? E : CC);
      console.log(`turn ${t + 1}, load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
    }
  } finally {
    await admin.end();
    await db.stop();
  }
})();
