// docs/decisions/0176: after `node scripts/build.mjs --server-only`, from the repository: HIST=1000000 node docs/decisions/patches/0176-first-click-marks-micro.js
// scratch: backend CPU (schedstat ns) and WAL a first click: recipient_click insert (random v4 / a campaign's ordered
// keys, today's columns) against a HOT update of a per-16-recipient bitmap row
const { Pool } = require('pg');
const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const { benchDatabase } = require(require('node:path').resolve(__dirname, '../../../dist/bench/bench-database'));
const HIST = Number(process.env.HIST ?? 1_000_000), CAMP = 300_000, G = 600, BATCHES = Number(process.env.BATCHES ?? 20), TURNS = Number(process.env.TURNS ?? 6);
const hex = (n, d) => n.toString(16).padStart(d, '0');
// as campaigns' recipientMessageUuids: campaign id (12 hex), contact (15 hex), occurrence (3 hex)
const ordered = (camp, contact) => { const c = hex(camp, 12), k = hex(contact, 15); return `${c.slice(0, 8)}-${c.slice(8)}-8${k.slice(0, 3)}-8${k.slice(3, 6)}-${k.slice(6)}000`; };
const shuffle = (a) => { for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); [a[i], a[j]] = [a[j], a[i]]; } return a; };
const cpuNs = (pid) => Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
(async () => {
  const db = await benchDatabase('sb-clickpg3-micro-', { settings: { plan_cache_mode: 'force_generic_plan' } });
  const admin = new Pool({ connectionString: db.url, max: 1 });
  admin.on('error', () => undefined);
  try {
    for (const t of ['rc_random', 'rc_ordered'])
      await admin.query(`CREATE TABLE ${t} (account_id bigint NOT NULL, message_uuid uuid NOT NULL, campaign_id bigint, variant_id bigint, domain_id bigint NOT NULL, first_click_id uuid NOT NULL, first_clicked_at timestamptz NOT NULL, PRIMARY KEY (account_id, message_uuid))`);
    await admin.query(`CREATE TABLE rf (page bigint PRIMARY KEY, clicked int NOT NULL DEFAULT 0, fresh int NOT NULL DEFAULT 0) WITH (fillfactor = ${process.env.FF ?? 50})`);
    // history: HIST older first clicks (random keys; 100 older campaigns' ordered keys), and their pages
    await admin.query(`INSERT INTO rc_random SELECT 1, gen_random_uuid(), 1, 1, 1, gen_random_uuid(), now() FROM generate_series(1, ${HIST})`);
    await admin.query(`INSERT INTO rc_ordered SELECT 1, (lpad(to_hex(c), 12, '0') || '8' || left(lpad(to_hex(k), 15, '0'), 3) || '8' || right(lpad(to_hex(k), 15, '0'), 12) || '000')::uuid, 1, 1, 1, gen_random_uuid(), now()
                         FROM generate_series(1, 100) c, generate_series(1, ${HIST / 100}) k`);
    await admin.query(`INSERT INTO rf (page) SELECT generate_series(1, ${(HIST + CAMP) / 16})`);
    // link_range-like rows (16 recipients' arrays, ~1.5 kB, storage EXTERNAL as 0105) with a nullable bitmap of first clicks at the end
    await admin.query(`CREATE TABLE lr (page bigint PRIMARY KEY, account_id bigint NOT NULL, target_id bigint NOT NULL, campaign_id bigint, stream_id bigint, expires_at timestamptz, created_at timestamptz NOT NULL,
      domains bigint[] NOT NULL, variants bigint[] NOT NULL, contacts bigint[] NOT NULL, messages uuid[] NOT NULL, destinations text[] NOT NULL, vars text[], first_clicks int) WITH (toast_tuple_target = 8160, fillfactor = ${process.env.LRFF ?? 50})`);
    for (const c of ['domains', 'variants', 'contacts', 'messages', 'destinations', 'vars']) await admin.query(`ALTER TABLE lr ALTER COLUMN ${c} SET STORAGE EXTERNAL`);
    await admin.query(`INSERT INTO lr SELECT p, 1, 1, 1, NULL, NULL, now(), array_fill(1::bigint, ARRAY[16]), array_fill(1::bigint, ARRAY[16]), ARRAY(SELECT p * 16 + i FROM generate_series(0, 15) i),
        ARRAY(SELECT gen_random_uuid() FROM generate_series(0, 15) i), ARRAY(SELECT '+49151' || lpad((p * 16 + i)::text, 8, '0') FROM generate_series(0, 15) i),
        ARRAY(SELECT '["C' || i || '","Zoë"]' FROM generate_series(0, 15) i), NULL FROM generate_series(1, ${(HIST + CAMP) / 16}) p`);
    await admin.query('VACUUM ANALYZE'); await admin.query('CHECKPOINT');
    const pool = new Pool({ connectionString: db.url, max: 1 });
    pool.on('error', () => undefined);
    const { rows: [{ pid }] } = await pool.query('SELECT pg_backend_pid() AS pid');
    const contacts = shuffle(Array.from({ length: CAMP }, (_, i) => i));
    const randomKeys = Array.from({ length: CAMP }, () => randomUUID());
    const cursor = { rc_random: 0, rc_ordered: 0, rf: 0, lr: 0 };
    const LR = `WITH c AS (SELECT * FROM unnest($1::bigint[], $2::int[], $3::uuid[]) WITH ORDINALITY k(page, slot, id, ord)),
      f AS (SELECT DISTINCT ON (page, slot) page, slot, id FROM c ORDER BY page, slot, ord),
      x AS (SELECT page, bit_or(1 << slot) AS bits FROM f GROUP BY page),
      u AS (UPDATE lr SET first_clicks = coalesce(lr.first_clicks, 0) | x.bits FROM x WHERE lr.page = x.page AND coalesce(lr.first_clicks, 0) & x.bits <> x.bits
            RETURNING lr.page, x.bits & ~coalesce(old.first_clicks, 0) AS fresh)
      SELECT c.id FROM c WHERE c.id IN (SELECT f.id FROM f JOIN u USING (page) WHERE u.fresh & (1 << f.slot) <> 0)`;
    // the first-click parts of the group statement: the group's candidate per recipient, the decision, the clicks marked
    const INS = (t) => `WITH c AS (SELECT * FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY k(m, id, ord)),
      firsts AS (INSERT INTO ${t} (account_id, message_uuid, campaign_id, variant_id, domain_id, first_click_id, first_clicked_at)
        SELECT 1, m, 1, 1, 1, id, now() FROM (SELECT DISTINCT ON (m) m, id FROM c ORDER BY m, ord) f ORDER BY 1, 2
        ON CONFLICT (account_id, message_uuid) DO NOTHING RETURNING first_click_id)
      SELECT c.id FROM c WHERE c.id IN (SELECT first_click_id FROM firsts)`;
    const UPD = `WITH c AS (SELECT * FROM unnest($1::bigint[], $2::int[], $3::uuid[]) WITH ORDINALITY k(page, slot, id, ord)),
      f AS (SELECT DISTINCT ON (page, slot) page, slot, id FROM c ORDER BY page, slot, ord),
      x AS (SELECT page, bit_or(1 << slot) AS bits FROM f GROUP BY page),
      u AS (UPDATE rf SET clicked = rf.clicked | x.bits FROM x WHERE rf.page = x.page AND rf.clicked & x.bits <> x.bits RETURNING rf.page, x.bits & ~old.clicked AS fresh)
      SELECT c.id FROM c WHERE c.id IN (SELECT f.id FROM f JOIN u USING (page) WHERE u.fresh & (1 << f.slot) <> 0)`;
    const batch = (v) => {
      const from = cursor[v]; cursor[v] += G;
      const cs = contacts.slice(from, from + G);
      if (v === 'lr') return { name: 'lr', text: LR, values: [`{${cs.map((c) => HIST / 16 + (c >> 4) + 1).join(',')}}`, `{${cs.map((c) => c & 15).join(',')}}`, `{${cs.map(() => randomUUID()).join(',')}}`] };
      if (v === 'rf') return { name: 'upd', text: UPD, values: [`{${cs.map((c) => HIST / 16 + (c >> 4) + 1).join(',')}}`, `{${cs.map((c) => c & 15).join(',')}}`, `{${cs.map(() => randomUUID()).join(',')}}`] };
      const keys = v === 'rc_random' ? cs.map((c) => randomKeys[c]) : cs.map((c) => ordered(1000, c));
      return { name: v, text: INS(v), values: [`{${keys.join(',')}}`, `{${cs.map(() => randomUUID()).join(',')}}`] };
    };
    const res = { rc_random: [], rc_ordered: [], rf: [], lr: [] };
    for (let t = 0; t < TURNS; t++)
      for (const v of t % 2 ? ['lr', 'rf', 'rc_ordered', 'rc_random'] : ['rc_random', 'rc_ordered', 'rf', 'lr']) {
        const w0 = (await admin.query('SELECT pg_current_wal_insert_lsn() AS l')).rows[0].l;
        const c0 = cpuNs(pid);
        let n = 0;
        for (let b = 0; b < BATCHES; b++) n += (await pool.query(batch(v))).rowCount;
        const c1 = cpuNs(pid);
        const { rows: [{ w }] } = await admin.query(`SELECT pg_current_wal_insert_lsn() - $1::pg_lsn AS w`, [w0]);
        res[v].push(`${((c1 - c0) / 1000 / (G * BATCHES)).toFixed(2)} µs ${(w / (G * BATCHES)).toFixed(0)} B (${n})`);
      }
    const la = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const hot = await admin.query(`SELECT relname, n_tup_upd, n_tup_hot_upd, pg_relation_size(relid) AS bytes FROM pg_stat_user_tables WHERE relname IN ('lr', 'rf')`);
    console.log(hot.rows.map((r) => `${r.relname}: ${r.n_tup_hot_upd}/${r.n_tup_upd} HOT, ${(r.bytes / 1e6).toFixed(0)} MB`).join('; '));
    console.log(`HIST ${HIST}, groups of ${G}, ${BATCHES} a turn, load ${la}`);
    for (const [v, r] of Object.entries(res)) console.log(`${v.padEnd(11)} ${r.join(' | ')}`);
    await pool.end();
  } finally {
    await admin.end();
    await db.stop();
  }
})().catch((e) => { console.error(e); process.exit(1); });
