/**
 * What each part of the click group statement costs (decision 0159): one backend's CPU (/proc schedstat) and WAL per
 * click for the statement as it is and for cut-down variants of it, in turns, on the same warm group of repeat clicks
 * (links this process committed a click of, the warm redirect's case). Variants that drop output are measures of a
 * part's cost, not candidates. The variants follow the statement of decision 0165 (its outbox row's text from Node).
 *
 *   node scripts/build.mjs --server-only && node dist/bench/links-click-variants.js [group] [rounds] [reps]
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { Pool } from 'pg';
import { benchDatabase } from './bench-database';
import { cpuNs, linksSide, load1, loadLinksBuild, quietPool } from './links-two-builds';
import { FLUSH_SQL } from '../services/links/src/redirect/click-recorder';

const GROUP = Number(process.argv[2] ?? 600);
const ROUNDS = Number(process.argv[3] ?? 5);
const REPS = Number(process.argv[4] ?? 10);

const cut = (from: string, to: string) => {
  if (!FLUSH_SQL.includes(from)) throw new Error(`variant: not found: ${from.slice(0, 60)}`);
  return FLUSH_SQL.replace(from, to);
};
/** The outbox row's condition (since 0165 the row's text comes from Node, $18; the statement adds the first clicks). */
const OUTBOX_WHERE = 'WHERE $18::text IS NOT NULL';
const VARIANTS: Record<string, string> = {
  statement: FLUSH_SQL,
  // the outbox row not inserted (no heap row, no TOAST; the first clicks' positions not aggregated)
  'no outbox row': cut(OUTBOX_WHERE, 'WHERE $18::text IS NULL'),
  // the click rows not inserted
  'no click rows': cut(`INSERT INTO links.click (click_id, clicked_at, account_id, domain_id, code, campaign_id, variant_id, message_uuid, ua_class, preview, first, ip, user_agent)\n    SELECT`, `SELECT`),
};

async function main(): Promise<void> {
  const b = loadLinksBuild('this', path.resolve(__dirname, '..'));
  const db = await benchDatabase('sb-links-click-variants-');
  const admin = quietPool(new Pool({ connectionString: db.url, max: 1 }));
  try {
    const { pool, aux, pid, domain, cipher, codes } = await linksSide(admin, db.url, 'clicks_v', b, GROUP);
    const store = new b.LinkStore(aux, { cacheTtlMs: 1e9, negativeTtlMs: 1e9, cacheMax: 1e7, now: Date.now, cipher });
    const links = await Promise.all(codes.map((c) => store.loadLink(domain, c)));
    await aux.query('VACUUM ANALYZE links.link');
    const committer = new b.GroupCommitter(pool, 'https') as unknown as { write(chunks: unknown[]): Promise<void>; pool: Pool };
    const realPool = pool;
    let values: unknown[] = [];
    (committer as unknown as { pool: unknown }).pool = { query: (q: { values: unknown[] }) => ((values = q.values), Promise.resolve()) };
    const clicks = links.map((link) => ({ link, codeText: 'AAAAAAA', host: 'go.bench.test', at: Date.now(), uaClass: 2, preview: false, ip: '10.0.0.1', userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148' }));
    await committer.write([b.encodeClicks(clicks)]);
    await realPool.query({ name: 'statement', text: FLUSH_SQL, values: values.map((v, k) => (k === 18 && v !== null ? randomUUID() : v)) }); // the recipients' first clicks
    for (const l of links) (l as { clickCommitted?: boolean }).clickCommitted = true;
    await committer.write([b.encodeClicks(clicks)]);
    const lsn = async () => BigInt((await aux.query<{ l: string }>(`SELECT (pg_current_wal_lsn() - '0/0')::text AS l`)).rows[0].l);
    const sums = new Map<string, number[]>();
    console.log(`click group statement variants: groups of ${GROUP} repeat clicks, ${ROUNDS} rounds of ${REPS} statements a variant; load ${load1()}`);
    for (let r = 0; r < ROUNDS; r++) {
      const names = Object.keys(VARIANTS);
      for (const name of r % 2 ? names.reverse() : names) {
        const c0 = cpuNs(pid);
        const w0 = await lsn();
        // the outbox row's event id ($19) is unique: a fresh one a statement
        for (let i = 0; i < REPS; i++) await realPool.query({ name: `v-${name}`, text: VARIANTS[name], values: values.map((v, k) => (k === 18 && v !== null ? randomUUID() : v)) });
        const cpu = (cpuNs(pid) - c0) / 1000 / (REPS * GROUP);
        const wal = Number((await lsn()) - w0) / (REPS * GROUP);
        (sums.get(name) ?? sums.set(name, []).get(name)!).push(cpu);
        console.log(`round ${r + 1} ${name.padEnd(26)} ${cpu.toFixed(2)} µs ${wal.toFixed(0)} WAL B a click (load ${load1()})`);
      }
      await aux.query('VACUUM links.outbox, links.click');
    }
    for (const [name, xs] of sums) console.log(`${name.padEnd(26)} median ${[...xs].sort((a, b) => a - b)[xs.length >> 1].toFixed(2)} µs (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`);
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
