/**
 * The redirect's read-ahead (docs/decisions/0203), alone: what a page of 16 links read whole costs against its 16 links
 * read one by one, on one database with links minted by this build (rows of 16), in turns that alternate which goes first.
 *
 *  1. The statement (`LOOKUP_SQL`, prepared on its own backend, generic plan): one PostgreSQL backend's CPU (/proc
 *     schedstat) a link, (s) every code of P pages sent without `ahead`, in batches of BATCH codes, against (a) one code a
 *     page sent with `ahead`, in batches of BATCH codes (BATCH × 16 links a batch).
 *  2. `LinkStore` end to end, read-ahead off and on: every code of the turn's pages asked for in a random order, BATCH at
 *     a time (each group waits for its answers, as a burst of first clicks does), a fresh store a turn: the backend's CPU
 *     and this process's CPU (the client side: decrypt, rows, `toLink`, cache) a link, and the look-ups.
 *  3. The same with one code a page asked for: a page none of whose other links is clicked, read-ahead's worst case.
 *
 *   node scripts/build.mjs --server-only && PGOPTIONS='-c plan_cache_mode=force_generic_plan' node dist/bench/links-read-ahead.js [turns] [pages a turn] [batch]
 *
 * SHARE=<0..1>: in 2., each link of the turn's pages asked for with that probability (a campaign's click share).
 * EXPLAIN=1 prints the generic plan of one batch with `ahead` first.
 */
import * as path from 'node:path';
import { Pool } from 'pg';
import { benchDatabase } from './bench-database';
import { cpuNs, linksSide, load1, loadLinksBuild, quietPool } from './links-two-builds';

const TURNS = Number(process.argv[2] ?? 6);
const PAGES = Number(process.argv[3] ?? 500);
const BATCH = Number(process.argv[4] ?? 43);
const SHARE = Number(process.env.SHARE ?? 1);

function shuffle<T>(a: T[]): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

async function main(): Promise<void> {
  const b = loadLinksBuild('this', path.resolve(__dirname, '..'));
  const db = await benchDatabase('sb-links-ahead-');
  const admin = quietPool(new Pool({ connectionString: db.url, max: 1 }));
  try {
    // 3 x TURNS x PAGES pages: each phase of each turn reads pages no earlier phase read (no warm buffers favoured), and
    // one more set for the warm-up; minted 1000 a batch (62.5 pages), so a page's 16 codes are consecutive in `codes`
    const sets = 3 * 2 * TURNS + 2;
    const side = await linksSide(admin, db.url, 'ahead', b, Math.ceil((sets * PAGES * 16) / 1000) * 1000);
    await side.aux.query('VACUUM ANALYZE');
    const seqs = side.codes.map((c) => side.cipher.decrypt(c));
    // the pages (seq >> 4) in minting order, each with its codes
    const byPage = new Map<number, number[]>();
    side.codes.forEach((c, i) => {
      const p = Math.floor(seqs[i] / 16);
      let l = byPage.get(p);
      if (!l) byPage.set(p, (l = []));
      l.push(i);
    });
    const pages = [...byPage.values()].filter((l) => l.length === 16);
    let next = 0;
    const take = () => pages.slice(next, (next += PAGES));
    const sql = (b as unknown as { LOOKUP_SQL: string }).LOOKUP_SQL;
    const lit = (a: Array<number | string | boolean>) => `{${a.map((x) => (typeof x === 'boolean' ? (x ? 't' : 'f') : x)).join(',')}}`;
    const run = async (idx: number[], ahead: boolean) => {
      let rows = 0;
      for (let i = 0; i < idx.length; i += BATCH) {
        const part = idx.slice(i, i + BATCH);
        const r = await side.pool.query({ name: 'links_link_lookup', text: sql, values: [lit(part.map(() => side.domain)), lit(part.map((k) => side.codes[k])), lit(part.map((k) => seqs[k])), lit(part.map(() => ahead))], rowMode: 'array' });
        rows += r.rowCount ?? 0;
      }
      return rows;
    };
    if (process.env.EXPLAIN) {
      const c = await side.aux.connect();
      await c.query('SET plan_cache_mode = force_generic_plan');
      await c.query(`PREPARE x AS ${sql}`);
      const part = pages.slice(0, 3).map((l) => l[0]);
      const plan = await c.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, VERBOSE, BUFFERS) EXECUTE x('${lit(part.map(() => side.domain))}', '${lit(part.map((k) => side.codes[k]))}', '${lit(part.map((k) => seqs[k]))}', '{t,t,f}')`,
      );
      console.log(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
      c.release();
    }
    // warm-up: the statement's custom plans, then generic
    const w = take();
    await run(w.flat(), false);
    await run(w.map((l) => l[0]), true);
    console.log(`links read-ahead micro: ${TURNS} turns, ${PAGES} pages (${PAGES * 16} links) a phase, ${BATCH} codes a batch; load ${load1()}`);
    for (let t = 0; t < TURNS; t++) {
      const order = t % 2 === 0 ? [false, true] : [true, false];
      const out: string[] = [];
      for (const ahead of order) {
        const ps = take();
        const idx = ahead ? shuffle(ps.map((l) => l[0])) : shuffle(ps.flat());
        const c0 = cpuNs(side.pid);
        const rows = await run(idx, ahead);
        const us = (cpuNs(side.pid) - c0) / 1000 / (ps.length * 16);
        out.push(`${ahead ? 'page' : '16 single'} ${us.toFixed(2)} µs (${rows} rows)`);
      }
      console.log(`  statement, turn ${t + 1} (load ${load1()}): PostgreSQL a link: ${out.join(', ')}`);
    }
    for (const only of [false, true])
    for (let t = 0; t < TURNS; t++) {
      const order = t % 2 === 0 ? [false, true] : [true, false];
      const out: string[] = [];
      for (const ahead of order) {
        const ps = take();
        // ONE: one code a page asked for (a page none of whose other recipients clicks: what a read-ahead costs at worst)
        // SHARE: each link asked with that probability (a campaign's click share; default 1: every link)
        const idx = only ? shuffle(ps.map((l) => l[0])) : shuffle(ps.flat().filter(() => SHARE >= 1 || Math.random() < SHARE));
        let reads = 0;
        const counting = {
          query: (q: unknown) => {
            reads++;
            return side.pool.query(q as never);
          },
        } as unknown as Pool;
        const store = new b.LinkStore(counting, { cacheTtlMs: 1e9, negativeTtlMs: 1e9, cacheMax: 1e7, now: Date.now, cipher: side.cipher, readAhead: ahead }) as unknown as {
          cachedLink(d: string, c: number): unknown;
          loadLink(d: string, c: number): Promise<unknown>;
        };
        const c0 = cpuNs(side.pid);
        const n0 = process.cpuUsage();
        let found = 0;
        for (let i = 0; i < idx.length; i += BATCH) {
          const got = await Promise.all(idx.slice(i, i + BATCH).map((k) => store.cachedLink(side.domain, side.codes[k]) ?? store.loadLink(side.domain, side.codes[k])));
          found += got.filter(Boolean).length;
        }
        const n1 = process.cpuUsage(n0);
        const links = idx.length;
        out.push(
          `${ahead ? 'read-ahead' : 'one link a code'}: PostgreSQL ${((cpuNs(side.pid) - c0) / 1000 / links).toFixed(2)} µs, node ${((n1.user + n1.system) / links).toFixed(2)} µs, ${reads} look-ups, ${found}/${links} found`,
        );
      }
      console.log(`  LinkStore${only ? ', one code a page' : ''}, turn ${t + 1} (load ${load1()}), a link asked: ${out.join('; ')}`);
    }
  } finally {
    await admin.end();
    await db.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
