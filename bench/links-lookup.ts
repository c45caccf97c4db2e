/**
 * The redirect's link look-up alone (docs/decisions/0105, 0109): one PostgreSQL backend's CPU (its /proc schedstat: ns
 * on a core, not wall time) a link read by each build's `LOOKUP_SQL`, prepared once on its own backend as `LinkStore`
 * sends it, in batches of each SIZES codes, in turns between this build and another (BASE_DIST: a detached worktree's
 * dist). Each build gets its own database in one embedded PostgreSQL, created by its own migrations, with links minted
 * by its own minting code (main: a `links.link` row a link; ranges: rows of 16) for the same recipients; the turns
 * alternate which build goes first. The CPU of one backend holds up on a loaded machine far better than rates do.
 *
 *   node scripts/build.mjs --server-only && BASE_DIST=/work/wt/x-base/dist node dist/bench/links-lookup.js [turns] [links a turn] [sizes, e.g. 1,20,200]
 *
 * EXPLAIN=1 prints each build's generic plan for 20 codes (EXPLAIN ANALYZE VERBOSE BUFFERS) first. OFFERS=<n>: n offers (of other
 * accounts) in `links.offer` first; the minted links have none. Give `PGOPTIONS='-c plan_cache_mode=force_generic_plan'`
 * to plan as the redirect's pools do.
 */
import * as path from 'node:path';
import { Pool } from 'pg';
import { benchDatabase } from './bench-database';
import { cpuNs, linksSide, load1, loadLinksBuild, quietPool, type LinksSide } from './links-two-builds';

const TURNS = Number(process.argv[2] ?? 4);
const PER_TURN = Number(process.argv[3] ?? 4000);
const SIZES = (process.argv[4] ?? '20,200').split(',').map(Number);
const OFFERS = Number(process.env.OFFERS ?? 0);

async function main(): Promise<void> {
  const baseDist = process.env.BASE_DIST;
  if (!baseDist) throw new Error('BASE_DIST: the dist folder of the build to compare with');
  const builds = [loadLinksBuild('base', path.resolve(baseDist)), loadLinksBuild('this', path.resolve(__dirname, '..'))];
  const db = await benchDatabase('sb-links-lookup-');
  const admin = quietPool(new Pool({ connectionString: db.url, max: 1 }));
  const sides: Array<LinksSide & { seqs: number[] }> = [];
  try {
    for (const [k, b] of builds.entries()) {
      // one more turn's links: a warm-up pass of each size, not counted (the statement's first, custom plans)
      const side = await linksSide(admin, db.url, `lookup_${k}`, b, (TURNS + 1) * PER_TURN);
      // OFFERS=<n>: n offers of other accounts in links.offer (default 0, an empty table), as a deployment has
      if (OFFERS > 0)
        await side.aux.query(`INSERT INTO links.offer (account_id, name, original_url, created_at, updated_at) SELECT 1000 + k % 50, 'o' || k, 'https://shop.example/o/' || k, now(), now() FROM generate_series(1, $1::int) k`, [OFFERS]);
      await side.aux.query('VACUUM ANALYZE');
      sides.push({ ...side, seqs: side.codes.map((c) => side.cipher.decrypt(c)) });
    }
    const values = (s: (typeof sides)[number], from: number, to: number) => {
      const v: unknown[] = [s.codes.slice(from, to).map(() => s.domain), s.codes.slice(from, to)];
      if (/\$3\b/.test(s.b.LOOKUP_SQL)) v.push(s.seqs.slice(from, to));
      return v;
    };
    if (process.env.EXPLAIN) {
      for (const s of sides) {
        const c = await s.aux.connect();
        await c.query(`SET plan_cache_mode = force_generic_plan`);
        await c.query(`PREPARE x AS ${s.b.LOOKUP_SQL}`);
        const args = values(s, 0, 20)
          .map((a) => `'{${(a as unknown[]).join(',')}}'`)
          .join(', ');
        const plan = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, VERBOSE, BUFFERS) EXECUTE x(${args})`);
        console.log(`${s.b.name}:\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
        await c.query(`DEALLOCATE x`);
        c.release();
      }
    }
    console.log(`link look-up: ${TURNS} turns, ${PER_TURN.toLocaleString()} links a build a turn, batches of ${SIZES.join(', ')} codes; load ${load1()}`);
    const sums = sides.map(() => new Map<number, number[]>(SIZES.map((z) => [z, []])));
    for (const size of SIZES) {
      for (let t = 0; t <= TURNS; t++) {
        for (const k of t % 2 ? [1, 0] : [0, 1]) {
          const s = sides[k];
          const c0 = cpuNs(s.pid);
          let found = 0;
          for (let i = t * PER_TURN; i < (t + 1) * PER_TURN; i += size) {
            found += (await s.pool.query({ name: 'links_link_lookup', text: s.b.LOOKUP_SQL, values: values(s, i, Math.min(i + size, (t + 1) * PER_TURN)) })).rowCount ?? 0;
          }
          if (found !== PER_TURN) throw new Error(`${s.b.name}: ${found} of ${PER_TURN} links found`);
          const us = (cpuNs(s.pid) - c0) / 1000 / PER_TURN;
          if (t === 0) continue;
          sums[k].get(size)!.push(us);
          console.log(`turn ${t}, ${size} codes a batch, ${s.b.name}: backend CPU a link ${us.toFixed(2)} µs (load ${load1()})`);
        }
      }
    }
    const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
    for (const size of SIZES) console.log(`${size} codes a batch: ${sides.map((s, k) => `${s.b.name} ${range(sums[k].get(size)!)} µs`).join(', ')}`);
  } finally {
    for (const s of sides) {
      await s.pool.end();
      await s.aux.end();
    }
    await admin.end();
    await db.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
