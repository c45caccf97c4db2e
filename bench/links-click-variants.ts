/**
 * What each part of the click group statement costs (decision 0159): one backend's CPU (/proc schedstat) and WAL per
 * click for the statement as it is and for cut-down variants of it, in turns, on the same warm group of repeat clicks
 * (links this process committed a click of, the warm redirect's case). Variants that drop output are measures of a
 * part's cost, not candidates.
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
const OUTBOX_START = FLUSH_SQL.indexOf('), e AS (');
/** The outbox row's SELECT (its text aggregated from the envelopes), whichever form the build writes. */
const OUTBOX_SELECT = /SELECT gen_random_uuid\(\), '', \(count\(\*\) \+ sum\(firsts\)\)::text, [^\n]*HAVING count\(\*\) > 0/.exec(FLUSH_SQL)![0];
const VARIANTS: Record<string, string> = {
  statement: FLUSH_SQL,
  // the events' text built and aggregated into the outbox row's text, the row not inserted (no heap row, no TOAST)
  'events built, not stored': cut(OUTBOX_SELECT, OUTBOX_SELECT.replace('HAVING count(*) > 0', 'HAVING count(*) < 0')),
  // the envelopes built per account chunk, not aggregated into one text (no outer sort and string_agg), not stored
  'envelopes only': cut(OUTBOX_SELECT, `SELECT gen_random_uuid(), '', firsts::text, $10::text, '{}', env FROM envelopes WHERE length(env) < 0`),
  // the link's fields of each click not built (nor the events)
  'no events, no link fields': FLUSH_SQL.slice(0, OUTBOX_START).replace(/CASE WHEN k\.preview THEN NULL ELSE [\s\S]*? END AS fields/, 'NULL::text AS fields') + ')\n  SELECT length($10::text) + length($12::text)',
  // the click ids sent by Node ($15, uuid[]) instead of gen_random_uuid() a click in PostgreSQL
  'click ids from Node': cut('SELECT gen_random_uuid() AS click_id,', 'SELECT ($15::uuid[])[k.ord] AS click_id,'),
  // the events' text, envelopes and the outbox row left out (the rows and rollups only)
  'no events': FLUSH_SQL.slice(0, OUTBOX_START) + ')\n  SELECT length($10::text)',
  // the outbox row's text aggregated but not inserted (the insert with its TOAST chunks left out)
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
    const clicks = links.map((link) => ({ link, codeText: 'AAAAAAA', at: Date.now(), uaClass: 2, preview: false, ip: '10.0.0.1', userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148' }));
    await committer.write([b.encodeClicks(clicks)]);
    await realPool.query({ name: 'statement', text: FLUSH_SQL, values }); // the recipients' first clicks
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
        for (let i = 0; i < REPS; i++) await realPool.query({ name: `v-${name}`, text: VARIANTS[name], values: name === 'click ids from Node' ? [...values, `{${links.map(() => randomUUID()).join(',')}}`] : values });
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
