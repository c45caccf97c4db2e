// docs/decisions/0223: one backend's CPU (schedstat) and WAL a click of the click group statement, by variant, in turns.
// After `node scripts/build.mjs --server-only` in a worktree: VARIANTS=today,today+b,bind,bind+b TURNS=12 BATCHES=30 \
//   SQLS=docs/decisions/patches/0223-click-group-variants.js node docs/decisions/patches/0223-click-group-micro.js <worktree>
// (+b: the same statement with its arrays sent in the binary format; FIRST=1: every click a first click; WALSTATS=1:
// pg_walinspect's WAL by record type and relation in the last turn; G: clicks a group). `+b` converts the text
// parameters of a build that sends text (base e134430) to binary; on a build that sends binary (0223) leave it out.
// gExt/gPglz need their tables: GT="(at timestamptz, a uuid[], b float8[], c bigint[], d bigint[], e bigint[], f bigint[],
// g bigint[], h uuid[], i float8[], j smallint[], k boolean[], l boolean[], m text[], n int[], o text[], p int[], q int,
// r text, s uuid)"; SETUP="CREATE TABLE links.click_g $GT;; CREATE TABLE links.click_gx $GT;; ALTER TABLE links.click_gx
// ALTER a SET STORAGE EXTERNAL, ... (every array and r)".
// micro: one backend's CPU (schedstat) and WAL a warm click of the click group statement, by variant.
// run from a built worktree: node micro.js <worktree>
const path = require('node:path');
const fs = require('node:fs');
const WT = path.resolve(process.argv[2] ?? '.');
const { Pool } = require(path.join(WT, 'node_modules/pg'));
const { benchDatabase } = require(path.join(WT, 'dist/bench/bench-database'));
const { openServiceDataSource } = require(path.join(WT, 'dist/libs/platform/src'));
const { LINKS_MIGRATIONS } = require(path.join(WT, 'dist/services/links/src'));
const rec = require(path.join(WT, 'dist/services/links/src/redirect/click-recorder'));
const G = Number(process.env.G ?? 500), BATCHES = Number(process.env.BATCHES ?? 40), TURNS = Number(process.env.TURNS ?? 6), FIRST = process.env.FIRST === '1';
const UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';
const cpuNs = (pid) => Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
const VARIANTS = (process.env.VARIANTS ?? 'today').split(',');
(async () => {
  const db = await benchDatabase('sb-clickwrite-micro-', { settings: { plan_cache_mode: 'force_generic_plan', ...(process.env.PGSET ? JSON.parse(process.env.PGSET) : {}) } });
  try {
    const ds = await openServiceDataSource({ name: 'm', url: db.url, schema: 'links', entities: [], migrations: LINKS_MIGRATIONS, migrationsRun: true });
    await ds.destroy();
    const admin = new Pool({ connectionString: db.url, max: 1 }); admin.on('error', () => undefined);
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    if (process.env.SETUP) for (const s of process.env.SETUP.split(';;')) await admin.query(s);
    const pool = new Pool({ connectionString: db.url, max: 1 }); pool.on('error', () => undefined);
    const { rows: [{ pid }] } = await pool.query('SELECT pg_backend_pid() AS pid');
    let contact = 0;
    const links = [];
    const mk = () => {
      const c = contact++;
      const h = c.toString(16).padStart(15, '0');
      return { domainId: '7', code: 1000000 + c, seq: c, accountId: '42', campaignId: '1000', variantId: '1', streamId: null, contactId: String(c), messageUuid: `00000000-03e8-8${h.slice(0, 3)}-8${h.slice(3, 6)}-${h.slice(6)}000`, destination: '+4915112345678',
        kind: 0, offerId: null, location: 'https://shop.example.com/spring-sale?utm_source=sms&utm_campaign=1000', template: 'https://shop.example.com/spring-sale?utm_source=sms&utm_campaign=1000', expiresAtMs: Infinity, disabled: false, createdAtMs: Date.now() - 3600e3, offerStamp: null, clickCommitted: !FIRST };
    };
    for (let i = 0; i < 20000; i++) links.push(mk());
    const committers = {};
    const SQLS = process.env.SQLS ? require(path.resolve(process.env.SQLS)) : {};
    for (const v of VARIANTS) {
      const bin = v.endsWith('+b'); const f = SQLS[v.replace('+b', '')];
      const tobin = require(path.join(__dirname, '0223-text-to-binary.js'));
      const p = f || bin ? { query: (q) => pool.query({ ...q, name: 'v_' + v, text: f ? f(q.text) : q.text, values: bin ? tobin(q.values) : q.values }) } : pool;
      committers[v] = new rec.GroupCommitter(p, 'https', 0);
    }
    const sink = async (v, n) => {
      const group = [];
      for (let i = 0; i < n; i++) {
        const l = FIRST ? mk() : links[(Math.random() * links.length) | 0];
        group.push({ link: l, codeText: 'a' + l.code.toString(36), host: 'go.example.com', at: Date.now(), uaClass: 2, preview: false, ip: `10.1.${i & 255}.${(i >> 8) & 255}`, userAgent: UA });
      }
      await committers[v].commit(rec.encodeClicks(group, 'https'));
    };
    // warm up: the prepared statement and the pages
    for (const v of VARIANTS) for (let b = 0; b < 5; b++) await sink(v, G);
    const res = {};
    for (let t = 0; t < TURNS; t++) {
      for (const v of (t % 2 ? [...VARIANTS].reverse() : VARIANTS)) {
        process.env.CLICK_VARIANT = v;
        const [{ lsn: l0 }] = (await admin.query('SELECT pg_current_wal_insert_lsn() AS lsn')).rows;
        const c0 = cpuNs(pid);
        for (let b = 0; b < BATCHES; b++) await sink(v, G);
        const c1 = cpuNs(pid);
        const [{ lsn: l1 }] = (await admin.query('SELECT pg_current_wal_insert_lsn() AS lsn')).rows;
        const n = G * BATCHES;
        const { rows } = await admin.query(`SELECT pg_wal_lsn_diff($2, $1)::float8 AS wal`, [l0, l1]);
        (res[v] ??= []).push([(c1 - c0) / 1000 / n, rows[0].wal / n]);
        if (t === TURNS - 1 && process.env.WALSTATS) {
          const r = await admin.query(`SELECT "resource_manager/record_type" AS rec, count, round(combined_size::numeric / $3, 1) AS b_a_click, round(fpi_size::numeric / $3, 1) AS fpi FROM pg_get_wal_stats($1, $2, true) WHERE count > 0 ORDER BY combined_size DESC LIMIT 14`, [l0, l1, n]);
          console.log(v, 'WAL by record type, B a click:'); console.table(r.rows);
          const r2 = await admin.query(`SELECT coalesce(c.relname, r.block_ref) AS rel, count(*) AS records, round(sum(r.record_length)::numeric / $3, 1) AS b_a_click FROM (SELECT record_length, substring(block_ref from 'rel [0-9]+/[0-9]+/([0-9]+)') AS relfile, block_ref FROM pg_get_wal_records_info($1, $2)) r LEFT JOIN pg_class c ON c.relfilenode::text = r.relfile GROUP BY 1 ORDER BY 3 DESC LIMIT 12`, [l0, l1, n]);
          console.log(v, 'WAL by relation (first block ref):'); console.table(r2.rows);
        }
      }
    }
    for (const v of VARIANTS) console.log(v.padEnd(14), 'µs a click', res[v].map((x) => x[0].toFixed(2)).join(' '), '| WAL B a click', res[v].map((x) => x[1].toFixed(0)).join(' '));
    if (process.env.INSPECT) console.log((await admin.query(process.env.INSPECT)).rows);
    const sz = await admin.query(`SELECT relname, pg_total_relation_size(oid) AS bytes FROM pg_class WHERE relnamespace = 'links'::regnamespace AND relkind IN ('r') AND pg_total_relation_size(oid) > 100000 ORDER BY 2 DESC`);
    console.log(sz.rows.map((r) => `${r.relname} ${(r.bytes / 1e6).toFixed(1)} MB`).join(', '));
    await pool.end(); await admin.end();
  } finally {
    await db.stop();
  }
})().catch((e) => { console.error(String(e.message), e.where ?? '', e.position ?? ''); process.exit(1); });
