/**
 * Dispatch's row writes a message on the campaign path alone (issue 12, docs/decisions/0183): MESSAGES accepted
 * messages inserted already claimed (`insertAccepted`, as the intake does with room), then each given its submit
 * response and final receipt in one step (`markSentFinal`, the write lane's common case), in write batches of BATCH.
 * No bus, no SMSC: only the statements, against dispatch's schema as migrated.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/dispatch-message-writes.js [messages=20000] [batch=250] [rounds=3]
 *
 * VARIANT=main (the schema as migrated), ff<n> (`dispatch.message` with fillfactor n), hotbound (fillfactor 70 and
 * without the four partial indexes whose predicate names send_state: the final update can then be HOT; an upper bound
 * of what moving the in-flight state out of the row could give, not a schema to ship).
 * Prints per message and phase: PostgreSQL CPU (the cluster, from /proc), WAL bytes, and `dispatch.message`'s updates
 * and HOT updates; then EXPLAIN (ANALYZE, BUFFERS, WAL) of one more batch of each statement.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { Client } from 'pg';
import { openServiceDataSource } from '@switchboard/platform';
import { DISPATCH_MIGRATIONS, MessageRepository } from '@switchboard/dispatch';
import { benchDatabase, clusterCpuReader } from './bench-database';

const MESSAGES = Number(process.argv[2] ?? 20_000);
const BATCH = Number(process.argv[3] ?? 250);
const ROUNDS = Number(process.argv[4] ?? 3);
const VARIANT = process.env.VARIANT ?? 'main';
const INSTANCE = randomUUID();

async function main(): Promise<void> {
  const db = await benchDatabase('sb-dispatch-writes-');
  const ds = await openServiceDataSource({ name: 'dispatch', url: db.url, schema: 'dispatch', entities: [], migrations: DISPATCH_MIGRATIONS, migrationsRun: true });
  await ds.destroy();
  const pgc = new Client({ connectionString: db.url });
  await pgc.connect();
  let explainNext = false;
  const timing = new Map<string, number>();
  const q = {
    query: async (sql: string, params?: unknown[]) => {
      const t0 = performance.now();
      if (explainNext && sql.trim().startsWith('UPDATE dispatch.message')) {
        explainNext = false;
        console.log((await pgc.query(`EXPLAIN ${sql}`, params)).rows.map((x: Record<string, string>) => `      ${x['QUERY PLAN']}`).join('\n'));
      }
      const r = (await pgc.query(sql, params)).rows;
      const k = sql.trim().slice(0, 40);
      timing.set(k, (timing.get(k) ?? 0) + performance.now() - t0);
      return r;
    },
  };
  const repo = new MessageRepository(q as never);
  const ff = /^ff(\d+)$/.exec(VARIANT);
  if (ff) await pgc.query(`ALTER TABLE dispatch.message SET (fillfactor = ${Number(ff[1])})`);
  if (VARIANT === 'hotbound') {
    await pgc.query(`ALTER TABLE dispatch.message SET (fillfactor = 70)`);
    for (const ix of ['message_queued', 'message_submitting', 'message_awaiting_receipt', 'message_held']) await pgc.query(`DROP INDEX IF EXISTS dispatch.${ix}`);
  }
  if (process.env.JIT === '0') await pgc.query('SET jit = off');
  const cluster = db.pgDir ? clusterCpuReader(db.pgDir) : () => 0;
  // the bench's own backend (the statements' CPU, without autovacuum and the background writers)
  const backend = Number((await pgc.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0].p);
  const cpu = () => {
    const f = fs.readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  };
  const lsn = async () => (await pgc.query<{ l: string }>(`SELECT pg_current_wal_insert_lsn()::text AS l`)).rows[0].l;
  const walSince = async (from: string) => Number((await pgc.query<{ b: string }>(`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1)::text AS b`, [from])).rows[0].b);
  const updates = async () => {
    await pgc.query('SELECT pg_stat_force_next_flush()');
    await pgc.query('SELECT pg_stat_clear_snapshot()');
    const r = (await pgc.query<{ u: string; h: string }>(`SELECT n_tup_upd::text AS u, n_tup_hot_upd::text AS h FROM pg_stat_user_tables WHERE schemaname = 'dispatch' AND relname = 'message'`)).rows[0];
    return { u: Number(r.u), h: Number(r.h) };
  };
  let seq = 0;
  const accepted = (n: number) =>
    Array.from({ length: n }, () => {
      seq++;
      return {
        eventId: randomUUID(), uuid: randomUUID(), accountId: '7', streamId: '3', streamUid: 'st-3', streamType: 1, campaignId: '11', channel: 'sms', sender: 'Switchboard',
        destination: `49151${String(10_000_000 + seq)}`, iso2: 'DE', body: `Hello ${seq}, your code is ${100000 + (seq % 900000)}. Reply STOP to opt out.`, payload: null,
        encoding: 'gsm7', segments: 1, priceMicros: 6500, currency: 'EUR', notBefore: null, acceptedAt: new Date().toISOString(), attemptId: randomUUID(), traceparent: null,
      };
    });
  const finalOf = (r: { id: string; attempt_id: string }) => ({
    id: String(r.id), attemptId: r.attempt_id, vendorId: '1', providerId: `p${r.id}-${randomUUID().slice(0, 8)}`, status: 'delivered' as const, outgoing: 'delivered', error: null, deliveredAt: new Date(),
  });

  console.log(`dispatch-message-writes: ${MESSAGES} messages a round, batch ${BATCH}, ${ROUNDS} rounds, variant ${VARIANT}, load ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (let round = 1; round <= ROUNDS; round++) {
    const claimed: Array<{ id: string; attempt_id: string }> = [];
    await pgc.query('VACUUM dispatch.message');
    await pgc.query('CHECKPOINT');
    let k0 = cluster();
    let c0 = cpu();
    const n0 = process.cpuUsage();
    let w0 = await lsn();
    for (let i = 0; i < MESSAGES; i += BATCH) {
      await pgc.query('BEGIN');
      claimed.push(...(await repo.insertAccepted(q as never, accepted(Math.min(BATCH, MESSAGES - i)), INSTANCE)));
      await pgc.query('COMMIT');
    }
    const insCpu = cpu() - c0;
    const insAll = cluster() - k0;
    const insNode = process.cpuUsage(n0);
    const insWal = await walSince(w0);
    const u0 = await updates();
    explainNext = process.env.TIMING === '1';
    k0 = cluster();
    c0 = cpu();
    w0 = await lsn();
    for (let i = 0; i < claimed.length; i += BATCH) {
      await pgc.query('BEGIN');
      await repo.markSentFinal(q as never, claimed.slice(i, i + BATCH).map(finalOf));
      await pgc.query('COMMIT');
    }
    const finCpu = cpu() - c0;
    const finAll = cluster() - k0;
    const finWal = await walSince(w0);
    const u1 = await updates();
    const per = (x: number) => ((x * 1000) / MESSAGES).toFixed(1);
    console.log(
      `  round ${round}: insert ${per(insCpu)} µs backend (${per(insAll)} cluster, node ${((insNode.user + insNode.system) / MESSAGES).toFixed(1)}), ${Math.round(insWal / MESSAGES)} B WAL a message; sent+final ${per(finCpu)} µs (${per(finAll)}), ${Math.round(finWal / MESSAGES)} B WAL; ` +
        `updates ${u1.u - u0.u} (HOT ${u1.h - u0.h})`,
    );
    if (process.env.TIMING === '1') console.log([...timing].map(([k, ms]) => `    ${ms.toFixed(0)} ms ${k}`).join('\n'));
    timing.clear();
  }
  // one more batch of each, explained
  const rows = accepted(BATCH);
  const explainOf = async (label: string, fn: (eq: never) => Promise<unknown>) => {
    let plan = '';
    const eq = {
      query: async (sql: string, params?: unknown[]) => {
        if (!plan && /^\s*(WITH ins AS|WITH upd AS|UPDATE dispatch\.message)/.test(sql)) {
          const r = await pgc.query(`EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF) ${sql}`, params);
          plan = r.rows.map((x: Record<string, string>) => x['QUERY PLAN']).join('\n');
          return (await pgc.query(sql, params)).rows;
        }
        return (await pgc.query(sql, params)).rows;
      },
    };
    await fn(eq as never);
    console.log(`  ${label}:\n${plan.split('\n').map((l) => `    ${l}`).join('\n')}`);
  };
  // insert explained (rolled back), then inserted for real and finalized explained (rolled back)
  await pgc.query('BEGIN');
  await explainOf('insertAccepted, one batch', (eq) => repo.insertAccepted(eq, rows, INSTANCE));
  await pgc.query('ROLLBACK');
  await pgc.query('BEGIN');
  const got = await repo.insertAccepted(q as never, rows, INSTANCE);
  await pgc.query('COMMIT');
  await pgc.query('BEGIN');
  await explainOf('markSentFinal, one batch', (eq) => repo.markSentFinal(eq, got.map(finalOf)));
  await pgc.query('ROLLBACK');
  await pgc.end();
  await db.stop();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
