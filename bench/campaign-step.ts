/**
 * The campaign runner's step statements at a million recipients (docs/decisions/0116): one campaign's recipients
 * seeded straight into `campaigns.recipient` by COPY (the campaigns migrations of this build), then at the start,
 * middle and end of the campaign (position P: the recipients before P - 1000 accepted, the 1000 before P in flight,
 * the rest fresh; `HELD=0.3`: that share of the recipients before P waiting for their hours, due tomorrow) each
 * statement of a step run under EXPLAIN (ANALYZE, BUFFERS) in a transaction rolled back: main's (0108: "open" as an
 * EXISTS over the open recipients, the next recipients as `state = 0 ... ORDER BY ordinal LIMIT`, on main's indexes:
 * the due index dropped inside the transaction) and this build's (the run's cursor and the due index). For each:
 * the recipient rows the plan read (rows returned and removed by a filter, at every node on the table or its
 * indexes), the shared buffers it touched and its execution time. Flat is the aim: the same at 990,000 as at 10.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/campaign-step.js [recipients=1000000] [positions=10,500000,990000]
 *
 * STATS=audience (default): the table's statistics are those taken after the COPY (every recipient open), as
 * autovacuum leaves them once the audience is in; STATS=fresh: ANALYZE at each position. Each position is VACUUMed
 * (no dead rows: a step's reads, not autovacuum's lag); VACUUM=0: not, every row moved so far leaves its dead versions
 * and index entries (autovacuum not come by since the campaign started: the worst case).
 */
import { randomUUID } from 'node:crypto';
import { Pool, type PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { openServiceDataSource } from '@switchboard/platform';
import { CAMPAIGNS_MIGRATIONS } from '../services/campaigns/src/migrations';
import { benchDatabase } from './bench-database';

const N = Number(process.argv[2] ?? 1_000_000);
const POSITIONS = (process.argv[3] ?? `10,${N / 2},${N - 10_000}`).split(',').map(Number);
const HELD = Number(process.env.HELD ?? 0);
const STATS = process.env.STATS ?? 'audience';
const VACUUM = process.env.VACUUM !== '0';
const IN_FLIGHT = 1000;
const LIMIT = 2000; // a batch of 1,000 asks for twice as many candidates
const ACCOUNT = '9001';
const VALUES = `, variables->>'2' AS v0`;
const COLUMNS = `ordinal, contact_id::text, occurrence, message_uuid::text, phone, timezone, NULL::jsonb AS variables, links${VALUES}`;

interface Statement {
  name: string;
  sql: string;
  params: (p: { id: string; now: Date; cursor: number; ordinals: number[] }) => unknown[];
}

const stale: Statement = {
  name: 'stale requests',
  sql: `WITH l AS (SELECT r.campaign_id, r.ordinal FROM campaigns.recipient r WHERE r.campaign_id = $1 AND r.state IN (1, 2) AND r.requested_at < $2 ORDER BY r.campaign_id, r.ordinal FOR UPDATE OF r)
        UPDATE campaigns.recipient r SET state = 0, batch_id = NULL FROM l WHERE r.campaign_id = l.campaign_id AND r.ordinal = l.ordinal`,
  params: (p) => [p.id, new Date(p.now.getTime() - 60_000)],
};
const request: Statement = {
  name: 'request (SET state = 2)',
  sql: `UPDATE campaigns.recipient r SET state = 2, batch_id = $2, requested_at = $3, variant_id = t.variant, sender_id = t.sender, segments = t.segments
          FROM unnest($4::int[], $5::bigint[], $6::bigint[], $7::int[]) t(o, variant, sender, segments)
         WHERE r.campaign_id = $1 AND r.ordinal = ANY($4::int[]) AND r.ordinal = t.o AND r.state = 0`,
  params: (p) => [p.id, randomUUID(), p.now, p.ordinals, p.ordinals.map(() => 1), p.ordinals.map(() => 1), p.ordinals.map(() => 1)],
};

/** main's step (0108). */
const MAIN: Statement[] = [
  stale,
  {
    name: 'in flight, open, counters',
    sql: `SELECT (SELECT count(*)::int FROM campaigns.recipient WHERE campaign_id = $1 AND state IN (1, 2)) AS in_flight,
                 EXISTS (SELECT 1 FROM campaigns.recipient WHERE campaign_id = $1 AND state < 3) AS open,
                 c.created::text AS accepted, c.left_dispatch::text AS left_dispatch
            FROM campaigns.campaign c WHERE c.id = $1`,
    params: (p) => [p.id],
  },
  {
    name: 'next recipients',
    sql: `SELECT ${COLUMNS} FROM campaigns.recipient WHERE campaign_id = $1 AND state = 0 AND (due_at IS NULL OR due_at <= $2) ORDER BY ordinal LIMIT $3`,
    params: (p) => [p.id, p.now, LIMIT],
  },
  request,
];

/** This build's step (0116). */
const CURSOR: Statement[] = [
  { ...stale, sql: stale.sql.replace('SET state = 0, batch_id = NULL', 'SET state = 0, batch_id = NULL, due_at = $3'), params: (p) => [...stale.params(p), p.now] },
  {
    name: 'in flight, fresh, next due, counters',
    sql: `SELECT (SELECT count(*)::int FROM campaigns.recipient WHERE campaign_id = $1 AND state IN (1, 2)) AS in_flight,
                 (SELECT ordinal FROM campaigns.recipient WHERE campaign_id = $1 AND ordinal >= $2 ORDER BY campaign_id, ordinal LIMIT 1) IS NOT NULL AS fresh,
                 (SELECT due_at FROM campaigns.recipient WHERE campaign_id = $1 AND state = 0 AND due_at IS NOT NULL ORDER BY due_at, ordinal LIMIT 1) AS next_due,
                 c.created::text AS accepted, c.left_dispatch::text AS left_dispatch
            FROM campaigns.campaign c WHERE c.id = $1`,
    params: (p) => [p.id, p.cursor],
  },
  {
    name: 'due recipients',
    sql: `SELECT ${COLUMNS} FROM campaigns.recipient WHERE campaign_id = $1 AND state = 0 AND due_at IS NOT NULL AND due_at <= $2 ORDER BY due_at, ordinal LIMIT $3`,
    params: (p) => [p.id, p.now, LIMIT],
  },
  {
    name: 'fresh recipients',
    sql: `SELECT ${COLUMNS} FROM campaigns.recipient WHERE campaign_id = $1 AND ordinal >= $2 AND state = 0 AND due_at IS NULL ORDER BY campaign_id, ordinal LIMIT $3`,
    params: (p) => [p.id, p.cursor, LIMIT],
  },
  request,
];

interface PlanNode {
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** Recipient rows a plan read: at each scan of the table or its indexes, the rows it returned and those it removed. */
function rowsRead(n: PlanNode): number {
  let own = 0;
  if (n['Relation Name'] === 'recipient' || (n['Index Name'] ?? '').startsWith('recipient')) {
    own = ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0)) * (n['Actual Loops'] ?? 1);
  }
  return own + (n.Plans ?? []).reduce((s, p) => s + rowsRead(p), 0);
}

function scans(n: PlanNode): string[] {
  const own = n['Index Name'] ? [n['Index Name']] : n['Relation Name'] === 'recipient' ? [(n as { 'Node Type'?: string })['Node Type'] ?? 'scan'] : [];
  return [...own, ...(n.Plans ?? []).flatMap(scans)];
}

async function explain(c: PoolClient, s: Statement, p: Parameters<Statement['params']>[0], dropDueIndex: boolean): Promise<{ rows: number; buffers: number; ms: number; via: string }> {
  await c.query('BEGIN');
  try {
    if (dropDueIndex) await c.query('DROP INDEX campaigns.recipient_due_idx');
    const { rows } = await c.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode; 'Execution Time': number }> }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${s.sql}`, s.params(p));
    const [top] = rows[0]['QUERY PLAN'];
    if (process.env.PLANS && s.name.includes(process.env.PLANS)) {
      const text = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${s.sql}`, s.params(p));
      console.log(text.rows.map((r) => r['QUERY PLAN']).join('\n'));
    }
    return { rows: rowsRead(top.Plan), buffers: (top.Plan['Shared Hit Blocks'] ?? 0) + (top.Plan['Shared Read Blocks'] ?? 0), ms: top['Execution Time'], via: [...new Set(scans(top.Plan))].join('+') };
  } finally {
    await c.query('ROLLBACK');
  }
}

async function main(): Promise<void> {
  const db = await benchDatabase('sb-campaign-step-', { log: (line) => process.stderr.write(`pg: ${line}\n`) });
  try {
    const ds = await openServiceDataSource({ name: 'campaign-step', url: db.url, schema: 'campaigns', entities: [], migrations: CAMPAIGNS_MIGRATIONS, migrationsRun: true });
    await ds.destroy();
    const pool = new Pool({ connectionString: db.url, max: 2 });
    const c = await pool.connect();
    const {
      rows: [{ id }],
    } = await c.query<{ id: string }>(
      `INSERT INTO campaigns.campaign (account_id, name, type, status, stream_id, contact_list_ids, campaign_settings, timezone_mode, working_days) VALUES ($1, 'Million', 0, 6, 1, ARRAY[1::bigint], '{}', 'recipient', ARRAY[1,2,3,4,5,6,7]) RETURNING id::text`,
      [ACCOUNT],
    );
    await c.query(`INSERT INTO campaigns.run (campaign_id, account_id, request_id, batch_size) VALUES ($1, $2, $3, 2000)`, [id, ACCOUNT, randomUUID()]);
    const t0 = Date.now();
    const stream = c.query(copyFrom(`COPY campaigns.recipient (campaign_id, ordinal, account_id, contact_id, occurrence, message_uuid, phone, iso2, timezone, variables) FROM STDIN`));
    await new Promise<void>((resolve, reject) => {
      stream.on('finish', () => resolve());
      stream.on('error', reject);
      let i = 0;
      const write = () => {
        while (i < N) {
          let chunk = '';
          for (const end = Math.min(N, i + 10_000); i < end; i++) chunk += `${id}\t${i}\t${ACCOUNT}\t${i + 1}\t0\t${randomUUID()}\t+4474${String(i).padStart(8, '0')}\tGB\tEurope/London\t{"2": "N${i}"}\n`;
          if (!stream.write(chunk)) {
            stream.once('drain', write);
            return;
          }
        }
        stream.end();
      };
      write();
    });
    await c.query('VACUUM ANALYZE campaigns.recipient');
    console.log(`campaign-step: ${N.toLocaleString()} recipients seeded by COPY in ${((Date.now() - t0) / 1000).toFixed(1)} s; held back ${HELD * 100}%, statistics ${STATS}, vacuum ${VACUUM ? 'at each position' : 'none'}; load ${(await import('node:os')).loadavg()[0].toFixed(1)}`);
    const now = new Date();
    const tomorrow = new Date(now.getTime() + 86_400_000);
    let done = 0;
    for (const at of POSITIONS) {
      // accepted up to P - 1000 (a share held back for its hours instead), in flight from there to P, fresh after
      const accepted = Math.max(0, at - IN_FLIGHT);
      // through state 2 first, as the runner moves them (each leaves an entry in the in-flight index)
      await c.query(`UPDATE campaigns.recipient SET state = 2 WHERE campaign_id = $1 AND ordinal >= $2 AND ordinal < $3`, [id, done, accepted]);
      await c.query(
        `UPDATE campaigns.recipient SET state = CASE WHEN $4::float8 > 0 AND abs(hashint4(ordinal)) % 1000 < $4::float8 * 1000 THEN 0 ELSE 3 END,
                due_at = CASE WHEN $4::float8 > 0 AND abs(hashint4(ordinal)) % 1000 < $4::float8 * 1000 THEN $5::timestamptz END, requested_at = $6, batch_id = NULL, status = 'sent'
          WHERE campaign_id = $1 AND ordinal >= $2 AND ordinal < $3`,
        [id, done, accepted, HELD, tomorrow, new Date(now.getTime() - 120_000)],
      );
      await c.query(`UPDATE campaigns.recipient SET state = 2, requested_at = $4, batch_id = $5 WHERE campaign_id = $1 AND ordinal >= $2 AND ordinal < $3`, [id, Math.max(done, accepted), at, new Date(now.getTime() - 500), randomUUID()]);
      done = at;
      await c.query(`UPDATE campaigns.run SET next_ordinal = $2 WHERE campaign_id = $1`, [id, at]);
      if (VACUUM) await c.query(STATS === 'fresh' ? 'VACUUM ANALYZE campaigns.recipient' : 'VACUUM campaigns.recipient');
      else if (STATS === 'fresh') await c.query('ANALYZE campaigns.recipient');
      const ordinals = Array.from({ length: Math.min(1000, N - at) }, (_, k) => at + k);
      const p = { id, now, cursor: at, ordinals };
      for (const [side, statements] of [['main', MAIN], ['cursor', CURSOR]] as const) {
        let rows = 0;
        let buffers = 0;
        let ms = 0;
        for (const s of statements) {
          // once to warm the cache, then measured
          await explain(c, s, p, side === 'main');
          const r = await explain(c, s, p, side === 'main');
          rows += r.rows;
          buffers += r.buffers;
          ms += r.ms;
          console.log(`  P=${String(at).padStart(9)} ${side.padEnd(6)} ${s.name.padEnd(38)} rows read ${String(r.rows).padStart(9)}  buffers ${String(r.buffers).padStart(7)}  ${r.ms.toFixed(2).padStart(9)} ms  via ${r.via || '-'}`);
        }
        console.log(`P=${String(at).padStart(9)} ${side.padEnd(6)} step total: rows read ${rows}, buffers ${buffers}, ${ms.toFixed(2)} ms`);
      }
    }
    c.release();
    await pool.end();
  } finally {
    await db.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
