/**
 * The click group statement's plan, node by node (decision 0159): EXPLAIN (ANALYZE, BUFFERS, WAL) of one group of
 * first clicks and then the same links again (repeat clicks of links this process committed), on links minted by this
 * build, plus pg_stat_statements-free backend CPU and WAL per click, and the tables' indexes and triggers.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/links-click-explain.js [group]
 */
import * as path from 'node:path';
import { Pool } from 'pg';
import { benchDatabase } from './bench-database';
import { linksSide, loadLinksBuild, quietPool } from './links-two-builds';
import { FLUSH_SQL } from '../services/links/src/redirect/click-recorder';

const GROUP = Number(process.argv[2] ?? 600);

async function main(): Promise<void> {
  const b = loadLinksBuild('this', path.resolve(__dirname, '..'));
  const db = await benchDatabase('sb-links-click-explain-');
  const admin = quietPool(new Pool({ connectionString: db.url, max: 1 }));
  try {
    const { pool, aux, domain, cipher, codes } = await linksSide(admin, db.url, 'clicks_x', b, GROUP * 3);
    const store = new b.LinkStore(aux, { cacheTtlMs: 1e9, negativeTtlMs: 1e9, cacheMax: 1e7, now: Date.now, cipher });
    const links = await Promise.all(codes.map((c) => store.loadLink(domain, c)));
    await aux.query('VACUUM ANALYZE links.link');
    const idx = await aux.query(`SELECT indexrelid::regclass::text AS i, pg_get_indexdef(indexrelid) AS d FROM pg_index WHERE indrelid IN ('links.click'::regclass, 'links.recipient_click'::regclass, 'links.click_stats'::regclass, 'links.outbox'::regclass)`);
    for (const r of idx.rows) console.log(`index ${r.d}`);
    const trg = await aux.query(`SELECT tgrelid::regclass::text AS t, tgname FROM pg_trigger WHERE NOT tgisinternal AND tgrelid IN ('links.click'::regclass, 'links.recipient_click'::regclass, 'links.click_stats'::regclass, 'links.outbox'::regclass)`);
    console.log(`triggers: ${trg.rows.map((r) => `${r.t}.${r.tgname}`).join(', ') || 'none'}`);
    const committer = new b.GroupCommitter(pool, 'https') as unknown as { write(chunks: unknown[]): Promise<void>; pool: Pool };
    const explainPool = quietPool(new Pool({ connectionString: new URL('/clicks_x', db.url).toString(), max: 1 }));
    const run = async (label: string, ls: unknown[]) => {
      const clicks = ls.map((link) => ({ link, codeText: 'AAAAAAA', host: 'go.bench.test', at: Date.now(), uaClass: 2, preview: false, ip: '10.0.0.1', userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148' }));
      // capture the statement's values, then run it under EXPLAIN
      let values: unknown[] = [];
      (committer as unknown as { pool: unknown }).pool = { query: (q: { values: unknown[] }) => ((values = q.values), Promise.resolve()) };
      await committer.write([b.encodeClicks(clicks)]);
      const plan = await explainPool.query(`EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF, TIMING ON) ${FLUSH_SQL}`, values);
      console.log(`\n== ${label}: ${ls.length} clicks`);
      for (const r of plan.rows) console.log(r['QUERY PLAN']);
    };
    const g1 = links.slice(0, GROUP);
    await run('first clicks', g1);
    await run('repeat clicks (unseen)', g1);
    for (const l of g1) (l as { clickCommitted?: boolean }).clickCommitted = true;
    await run('repeat clicks (seen)', g1);
    await run('repeat clicks (seen) again', g1);
    await explainPool.end();
    await pool.end();
    await aux.end();
  } finally {
    await admin.end();
    await db.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
