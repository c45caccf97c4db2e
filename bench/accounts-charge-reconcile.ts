/**
 * The cost of the reconciliation of charges (docs/decisions/0114) on streams' side, on real PostgreSQL:
 *
 * 1. `messages` (default 1,000,000) messages of ONE account over a day (1,440 windows of a minute), beside 200,000 of
 *    other accounts, in `streams.message` with its indexes as migrated (the covering `message_account_charges_idx`);
 * 2. the sums statement as streams' responder runs it, for one question covering the whole day, EXPLAINed (ANALYZE,
 *    BUFFERS: it must be an index-only scan, no seq scan) and run `RUNS` times: PostgreSQL backend CPU and node CPU per
 *    message; the ceiling is the bare statement over the same rows (one count and two sums, no windows);
 * 3. the listing (first verification of a window), pages of 1000 by keyset over an hour of windows: CPU per message;
 * 4. the send path's price of the new index: 50,000 rows inserted in statements of 500 into a copy of the table with
 *    the old account index (`(account_id, created_at)`) and into one with the new, interleaved A/B, `PAIRS` pairs:
 *    backend CPU per row.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/accounts-charge-reconcile.js [messages=1000000]
 *
 * DATABASE_URL uses an existing PostgreSQL on this machine (backend CPU is read from /proc); otherwise one is started.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { Client } from 'pg';
import { benchDatabase } from './bench-database';

const RUNS = Number(process.env.RUNS ?? 5);
const PAIRS = Number(process.env.PAIRS ?? 3);
const DAY_MS = 86_400_000;
const START = Date.UTC(2026, 10, 1);

const cpuOf = (pid: number): number => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // ms (clock ticks of 10 ms)
};
const nodeMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function table(name: string, accountIndex: 'old' | 'new'): string[] {
  return [
    `CREATE TABLE ${name} (
       uuid uuid PRIMARY KEY, account_id bigint NOT NULL, stream_id bigint NOT NULL, campaign_id bigint, sender text NOT NULL, destination text NOT NULL,
       iso2 text, text text NOT NULL, encoding text, segments integer NOT NULL, price_micros bigint NOT NULL, currency text NOT NULL,
       status text NOT NULL DEFAULT 'accepted', outgoing_status text, error text, demo boolean NOT NULL DEFAULT false, refunded_micros bigint NOT NULL DEFAULT 0,
       sent_at timestamptz, delivered_at timestamptz, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, reconciled_at timestamptz)`,
    `CREATE INDEX ON ${name} (stream_id, created_at)`,
    accountIndex === 'old' ? `CREATE INDEX ON ${name} (account_id, created_at)` : `CREATE INDEX ${name === 'streams.message' ? 'message_account_charges_idx' : ''} ON ${name} (account_id, created_at, uuid) INCLUDE (price_micros, refunded_micros, currency)`,
    `CREATE INDEX ON ${name} ((coalesce(reconciled_at, created_at))) WHERE status = 'accepted'`,
  ];
}

/** Rows of `account` spread over [from, from + spanMs), price 45,000, one in 20 refunded. */
const fill = (name: string, account: number, n: number, from: number, spanMs: number, offset = 0) =>
  `INSERT INTO ${name} (uuid, account_id, stream_id, sender, destination, iso2, text, encoding, segments, price_micros, currency, status, refunded_micros, created_at, updated_at)
   SELECT gen_random_uuid(), ${account}, ${account}, 'Shop', '+1415555' || lpad(((i + ${offset}) % 10000)::text, 4, '0'), 'US', 'Hello there, a message of a campaign', 'GSM7', 1, 45000, 'EUR',
          'delivered', CASE WHEN i % 20 = 0 THEN 45000 ELSE 0 END, ts, ts
     FROM generate_series(1, ${n}) AS i, LATERAL (SELECT to_timestamp(${from / 1000} + ((i - 1)::float8 * ${spanMs / 1000}) / ${n}) AS ts) t`;

const SUMS = `SELECT to_char(w.s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "from", x.n::int AS count, x.price::text AS price, x.refunded::text AS refunded
   FROM unnest($3::timestamptz[], $4::timestamptz[]) AS r(f, t)
  CROSS JOIN LATERAL generate_series(date_bin($2::int * interval '1 millisecond', r.f, timestamptz 'epoch'), r.t - interval '1 microsecond', $2::int * interval '1 millisecond') AS w(s)
  CROSS JOIN LATERAL (SELECT count(*) AS n, sum(m.price_micros) AS price, sum(m.refunded_micros) AS refunded FROM streams.message m
                       WHERE m.account_id = $1 AND m.created_at >= greatest(w.s, r.f) AND m.created_at < least(w.s + $2::int * interval '1 millisecond', r.t)) x
  WHERE x.n > 0
  ORDER BY w.s`;
const BARE = `SELECT count(*), sum(price_micros), sum(refunded_micros) FROM streams.message WHERE account_id = $1 AND created_at >= $2 AND created_at < $3`;
const AT = `to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const PAGE_FIRST = `SELECT m.uuid::text AS uuid, m.price_micros::text AS price, m.refunded_micros::text AS refunded, m.currency, ${AT} AS at FROM streams.message m
  WHERE m.account_id = $1 AND m.created_at >= $2 AND m.created_at < $3 ORDER BY m.created_at, m.uuid LIMIT $4`;
const PAGE_NEXT = `SELECT m.uuid::text AS uuid, m.price_micros::text AS price, m.refunded_micros::text AS refunded, m.currency, ${AT} AS at FROM streams.message m
  WHERE m.account_id = $1 AND m.created_at >= $2 AND m.created_at < $3 AND (m.created_at, m.uuid) > ($4::timestamptz, $5::uuid) ORDER BY m.created_at, m.uuid LIMIT $6`;

const range = (xs: number[]) => `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`;

async function main(): Promise<void> {
  const messages = Number(process.argv[2] ?? 1_000_000);
  const db = await benchDatabase('charge-reconcile-');
  const c = new Client({ connectionString: db.url });
  await c.connect();
  const pid = Number((await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${os.cpus().length} cores ${os.cpus()[0]?.model ?? ''}`);
  try {
    await c.query('CREATE SCHEMA IF NOT EXISTS streams');
    await c.query('DROP TABLE IF EXISTS streams.message, streams.message_a, streams.message_b');
    for (const s of table('streams.message', 'new')) await c.query(s);
    let t0 = Date.now();
    for (let done = 0; done < messages; done += 250_000) await c.query(fill('streams.message', 1, Math.min(250_000, messages - done), START + (done / messages) * DAY_MS, (Math.min(250_000, messages - done) / messages) * DAY_MS, done));
    await c.query(fill('streams.message', 2, 200_000, START, DAY_MS));
    await c.query('VACUUM ANALYZE streams.message');
    console.log(`filled ${messages} messages of account 1 over a day and 200,000 of account 2 in ${Date.now() - t0} ms`);

    const params = [1, 60_000, [new Date(START)], [new Date(START + DAY_MS)]];
    const plan = (await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${SUMS}`, params)).rows.map((r) => r['QUERY PLAN']);
    console.log(`\nEXPLAIN (ANALYZE, BUFFERS) of the sums answer for the day (1,440 windows):\n${plan.join('\n')}`);
    const text = plan.join('\n');
    console.log(`\nindex-only: ${text.includes('Index Only Scan using message_account_charges_idx') ? 'yes' : 'NO'}; seq scan: ${/Seq Scan/.test(text) ? 'YES' : 'no'}`);

    const per = (ms: number) => (ms * 1000) / messages; // µs a message
    const sumsPg: number[] = [], sumsNode: number[] = [], barePg: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      let p = cpuOf(pid);
      const n = nodeMs();
      const rows = (await c.query(SUMS, params)).rows as Array<{ count: number }>;
      sumsPg.push(per(cpuOf(pid) - p));
      sumsNode.push(per(nodeMs() - n));
      if (rows.reduce((s, x) => s + x.count, 0) !== messages) throw new Error('sums do not add up');
      p = cpuOf(pid);
      await c.query(BARE, [1, new Date(START), new Date(START + DAY_MS)]);
      barePg.push(per(cpuOf(pid) - p));
    }
    console.log(`\nsums of one account's day (${messages} messages), ${RUNS} runs, µs a message:`);
    console.log(`  sums answer:  PostgreSQL ${range(sumsPg)}, node ${range(sumsNode)}`);
    console.log(`  ceiling (bare count and sums, no windows): PostgreSQL ${range(barePg)}`);
    console.log(`  ratio sums/ceiling (PostgreSQL, medians): ${(sumsPg.sort()[sumsPg.length >> 1] / barePg.sort()[barePg.length >> 1]).toFixed(2)}`);

    // the listing of an hour of windows, pages of 1000
    let listed = 0;
    const lp = cpuOf(pid), ln = nodeMs();
    t0 = Date.now();
    for (let w = 0; w < 60; w++) {
      const from = new Date(START + w * 60_000), to = new Date(START + (w + 1) * 60_000);
      let after: { at: string; uuid: string } | null = null;
      for (;;) {
        const rows: Array<{ uuid: string; at: string }> = after
          ? (await c.query(PAGE_NEXT, [1, from, to, after.at, after.uuid, 1001])).rows
          : (await c.query(PAGE_FIRST, [1, from, to, 1001])).rows;
        const page = rows.slice(0, 1000);
        listed += page.length;
        if (rows.length <= 1000) break;
        after = { at: page[page.length - 1].at, uuid: page[page.length - 1].uuid };
      }
    }
    console.log(`\nlisting an hour of windows (${listed} messages, pages of 1000): PostgreSQL ${(((cpuOf(pid) - lp) * 1000) / listed).toFixed(2)} µs, node ${(((nodeMs() - ln) * 1000) / listed).toFixed(2)} µs a message, ${Date.now() - t0} ms`);
    const pagePlan = (await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${PAGE_NEXT}`, [1, new Date(START), new Date(START + 60_000), new Date(START + 1000).toISOString(), '00000000-0000-0000-0000-000000000000', 1001])).rows.map((r) => r['QUERY PLAN']);
    console.log(pagePlan.join('\n'));

    // the send path: inserts into the old index and the new, interleaved
    const INSERTS = 50_000, STMT = 500;
    const a: number[] = [], b: number[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      for (const [name, kind, out] of [['streams.message_a', 'old', a], ['streams.message_b', 'new', b]] as const) {
        await c.query(`DROP TABLE IF EXISTS ${name}`);
        for (const s of table(name, kind)) await c.query(s);
        await c.query(fill(name, 9, 100_000, START, DAY_MS)); // not empty
        await c.query(`VACUUM ANALYZE ${name}`);
        const p = cpuOf(pid);
        for (let i = 0; i < INSERTS; i += STMT) await c.query(fill(name, 1, STMT, START + i * 1000, STMT * 1000, i));
        out.push(((cpuOf(pid) - p) * 1000) / INSERTS);
        await c.query(`DROP TABLE ${name}`);
      }
    }
    console.log(`\ninserts into streams.message, statements of ${STMT}, ${PAIRS} interleaved pairs, PostgreSQL µs a row: old index (account_id, created_at) ${range(a)}; new covering index ${range(b)}`);
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    await c.end();
    await db.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
