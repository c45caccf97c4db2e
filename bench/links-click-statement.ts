/**
 * The click group statement alone (docs/decisions/0104, after 0098's harness): one PostgreSQL backend's CPU (its
 * /proc schedstat: ns on a core, not wall time) and the WAL (LSN difference) per click, for first clicks and repeat
 * clicks, in turns between this build's statement and another build's (BASE_DIST: a detached worktree's dist). Each
 * build gets its own database in one embedded PostgreSQL, created by its own migrations, its own minted links (its own
 * minting code) and its own backend; the turns run one at a time, so the cluster's WAL position moves for one of them.
 * The CPU of one backend holds up on a loaded machine far better than rates do.
 *
 *   node scripts/build.mjs --server-only && BASE_DIST=/work/wt/x-base/dist node dist/bench/links-click-statement.js [turns] [clicks a turn] [group]
 */
import * as path from 'node:path';
import { Pool } from 'pg';
import { benchDatabase } from './bench-database';
import { cpuNs, linksSide, load1, loadLinksBuild, quietPool, type LinksBuild } from './links-two-builds';

const TURNS = Number(process.argv[2] ?? 4);
const PER_TURN = Number(process.argv[3] ?? 4000);
const GROUP = Number(process.argv[4] ?? 1000);

async function main(): Promise<void> {
  const baseDist = process.env.BASE_DIST;
  if (!baseDist) throw new Error('BASE_DIST: the dist folder of the build to compare with');
  const builds = [loadLinksBuild('base', path.resolve(baseDist)), loadLinksBuild('this', path.resolve(__dirname, '..'))];
  const db = await benchDatabase('sb-links-click-stmt-');
  const admin = quietPool(new Pool({ connectionString: db.url, max: 1 }));
  const sides: Array<{ b: LinksBuild; pool: Pool; aux: Pool; pid: number; links: unknown[] }> = [];
  try {
    for (const [k, b] of builds.entries()) {
      const { pool, aux, pid, domain, cipher, codes } = await linksSide(admin, db.url, `clicks_${k}`, b, TURNS * PER_TURN);
      const store = new b.LinkStore(aux, { cacheTtlMs: 1e9, negativeTtlMs: 1e9, cacheMax: 1e7, now: Date.now, cipher });
      const links: unknown[] = [];
      for (let i = 0; i < codes.length; i += 2000) links.push(...(await Promise.all(codes.slice(i, i + 2000).map((c) => store.loadLink(domain, c)))));
      if (links.some((l) => !l)) throw new Error('a minted code did not resolve');
      await aux.query('VACUUM ANALYZE links.link');
      sides.push({ b, pool, aux, pid, links });
    }
    const lsn = async () => BigInt((await admin.query<{ l: string }>(`SELECT (pg_current_wal_lsn() - '0/0')::text AS l`)).rows[0].l);
    console.log(`click group statement: ${TURNS} turns, ${PER_TURN.toLocaleString()} clicks a build a turn (first, then each again), groups of ${GROUP}; load ${load1()}`);
    const sums = sides.map(() => ({ first: [] as number[], unseen: [] as number[], repeat: [] as number[] }));
    for (let t = 0; t < TURNS; t++) {
      // alternate which build goes first in a turn
      for (const k of t % 2 ? [1, 0] : [0, 1]) {
        const s = sides[k];
        const committer = new s.b.GroupCommitter(s.pool, 'https');
        const group = s.links.slice(t * PER_TURN, (t + 1) * PER_TURN);
        // index scans of recipient_click (the first-click probes): the statement's backend is told to flush its
        // statistics when next idle (PostgreSQL 15+ would otherwise hold them up to 10 s)
        const probes = async () => {
          await s.pool.query('SELECT pg_stat_force_next_flush()');
          await new Promise((r) => setTimeout(r, 200));
          await s.aux.query('SELECT pg_stat_clear_snapshot()');
          return Number((await s.aux.query<{ n: string }>(`SELECT coalesce(sum(idx_scan), 0)::text AS n FROM pg_stat_user_indexes WHERE schemaname = 'links' AND relname = 'recipient_click'`)).rows[0].n);
        };
        const run = async () => {
          const p0 = await probes();
          const c0 = cpuNs(s.pid);
          const w0 = await lsn();
          for (let i = 0; i < group.length; i += GROUP) {
            const clicks = group.slice(i, i + GROUP).map((link) => ({ link, codeText: 'AAAAAAA', host: 'go.bench.test', at: Date.now(), uaClass: 2, preview: false, ip: '10.0.0.1', userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148' }));
            await committer.commit(s.b.encodeClicks(clicks));
          }
          const cpu = (cpuNs(s.pid) - c0) / 1000 / group.length;
          const wal = Number((await lsn()) - w0) / group.length;
          return { cpu, wal, probes: ((await probes()) - p0) / group.length };
        };
        const first = await run();
        // a repeat click in a process that did not record the first (another worker, a restarted process)
        const unseen = await run();
        // then as ClickRecorder marks a link after committing its counted click (docs/decisions/0122; a build
        // without the mark ignores the field): a repeat click in the process that recorded the first
        for (const link of group) (link as { clickCommitted?: boolean }).clickCommitted = true;
        const repeat = await run();
        sums[k].first.push(first.cpu);
        sums[k].unseen.push(unseen.cpu);
        sums[k].repeat.push(repeat.cpu);
        console.log(
          `turn ${t + 1} ${s.b.name}: backend CPU a first click ${first.cpu.toFixed(1)} µs (${first.wal.toFixed(0)} WAL bytes), a repeat click ${unseen.cpu.toFixed(1)} µs (${unseen.wal.toFixed(0)} WAL bytes), a repeat click of a link this process committed a click of ${repeat.cpu.toFixed(1)} µs (${repeat.wal.toFixed(0)} WAL bytes) (load ${load1()}); recipient_click index scans a click: ${first.probes.toFixed(2)} / ${unseen.probes.toFixed(2)} / ${repeat.probes.toFixed(2)}`,
        );
      }
    }
    const range = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
    for (const [k, s] of sides.entries()) console.log(`${s.b.name}: first click ${range(sums[k].first)} µs, repeat click ${range(sums[k].unseen)} µs, repeat click of a link this process committed a click of ${range(sums[k].repeat)} µs`);
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
