/**
 * The send path's write of a campaign batch alone (docs/decisions/0167): `SendService.writeAll` of 1,000 prepared sends
 * (one stream, one campaign, the events' heads as the service builds them) into `accept_messages` on an embedded
 * PostgreSQL with the streams migrations, each call in a rolled-back transaction. Prints, a message: node's CPU of the
 * call (building the rows and the parameter, the driver), the backend's CPU (/proc), and the parameter's bytes.
 *
 *   node dist/bench/send-batch-write.js [calls=30] [batch=1000]
 * PGSS=1: pg_stat_statements (nested statements too) of the measured calls, µs of execution a message.
 * STEP1=1: the function's step 1 alone (the batch's parse, prices and aggregates) as written and without its window,
 *   and the parse alone: backend CPU a send (docs/decisions/0222).
 * COMPACT=0: the full rows of accept_messages (before 0210); default the compact ones, as streams writes a campaign batch.
 * WALREL=1: the measured calls' WAL a message by relation and record kind (pg_walinspect, docs/decisions/0222).
 */
import * as fs from 'node:fs';
import { Client } from 'pg';
import { openServiceDataSource, timeOrderedUuid } from '@switchboard/platform';
import { StreamType } from '@switchboard/contracts';
import { STREAMS_MIGRATIONS } from '../services/streams/src/migrations';
import { SendService, type PreparedSend } from '../services/streams/src/services/send.service';
import { benchDatabase } from './bench-database';
import { printWalByRelation, walMark } from './pg-wal';

const calls = Number(process.argv[2] ?? 30);
const size = Number(process.argv[3] ?? 1000);
const PGSS = process.env.PGSS === '1';

const backendMs = (pid: number): number => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};

async function main(): Promise<void> {
  const db = await benchDatabase('sb-sendwrite-', {
    settings: PGSS ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all', 'pg_stat_statements.max': '10000' } : {},
  });
  try {
    const ds = await openServiceDataSource({ name: 'streams', url: db.url, schema: 'streams', entities: [], migrations: STREAMS_MIGRATIONS, migrationsRun: true });
    await ds.destroy();
    const c = new Client({ connectionString: db.url });
    await c.connect();
    await c.query(`INSERT INTO streams.customer (account_id, currency, daily_limit) VALUES (1, 'EUR', NULL)`);
    await c.query(`INSERT INTO streams.balance_slot (account_id, slot, balance_micros) SELECT 1, g, 1000000000000 FROM generate_series(0, 3) g`);
    await c.query(`INSERT INTO streams.price (account_id, iso2, price_micros, currency) VALUES (NULL, 'DE', 50000, 'EUR')`);
    const pid = (await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0].p;

    let bytes = 0;
    let lastBatch = '';
    const sendDb = {
      prepared: async (name: string, text: string, values: unknown[], client: Client) => {
        lastBatch = String(values[0]);
        bytes += Buffer.byteLength(String(values[0])) + (typeof values[1] === 'string' ? Buffer.byteLength(values[1]) : 0);
        return (await client.query({ name, text, values })).rows;
      },
    };
    const options = { compactSendRows: process.env.COMPACT !== '0', sendBatchMax: size, sendBatchesInFlight: 1, sharedTps: false, duplicateWindowSeconds: 0, balanceSlots: 4, defaultPriceMicros: null, idempotencyTtlSeconds: 86400 };
    const service = new SendService(sendDb as never, {} as never, {} as never, { sent: () => undefined } as never, { now: () => new Date() } as never, options as never);
    const stream = { id: '10', accountId: '1', streamUid: 'campaign-stream-uid', name: 's', streamType: StreamType.Marketing, status: 1, enableSending: true, sender: 'SHOP', params: {}, acl: {}, checkIpAcl: false, providerReady: true };
    const customer = { accountId: '1', status: 'active', active: 1, currency: 'EUR', tps: 1e9, dailyLimit: null, settings: {} };
    const sends: PreparedSend[] = Array.from({ length: size }, (_, n) => ({
      stream: stream as never,
      customer: customer as never,
      input: { destination: `+49151${String(10000000 + n)}`, iso2: 'DE', text: `Hello customer ${n}, our autumn sale starts today: 20% off everything with code AUTUMN.`, sender: 'SHOP', payload: null },
      flags: { campaignId: '7', messageUuid: timeOrderedUuid(), notBefore: null, noFingerprint: true },
      key: null,
      requestHash: null,
    }));

    const once = async () => {
      await c.query('BEGIN');
      const n0 = process.cpuUsage();
      const b0 = backendMs(pid);
      const r = await service.writeAll(sends, c as never);
      const n = process.cpuUsage(n0);
      const b = backendMs(pid) - b0;
      await c.query('ROLLBACK');
      if (r.some((x) => x.result !== 'ok')) throw new Error('a send was refused');
      return { node: (n.user + n.system) / 1000, backend: b };
    };
    for (let w = 0; w < 3; w++) await once();
    if (process.env.STEP1 === '1') {
      // the function's step 1 alone on the last batch (docs/decisions/0222): as written, without the window that carries
      // each whole row, and the parse alone; backend CPU a send over `calls` runs each, interleaved
      const from = `FROM (SELECT x, x.i, x.account_id, x.iso2, x.segments, x.price_override, x.fp IS NOT NULL AS fp, x.idem_key IS NOT NULL AS idem, K
                      FROM json_populate_recordset(NULL::streams.send_row, $1::json) x) r
              LEFT JOIN streams.customer c ON c.account_id = r.account_id
              LEFT JOIN LATERAL (SELECT coalesce(r.price_override, (SELECT pr.price_micros FROM streams.price pr
                              WHERE coalesce(pr.account_id, 0) IN (r.account_id, 0) AND pr.iso2 = r.iso2 AND pr.currency = c.currency
                              ORDER BY coalesce(pr.account_id, 0) DESC LIMIT 1), $2::bigint) AS price) p ON c.account_id IS NOT NULL`;
      const aggs = `SELECT array_agg(r.x ORDER BY r.i), array_agg(CASE WHEN c.account_id IS NULL THEN 'no_customer' WHEN p.price IS NULL THEN 'no_price' END ORDER BY r.i),
               array_agg(coalesce(p.price, 0) * r.segments ORDER BY r.i), array_agg(c.currency ORDER BY r.i), array_agg(KK ORDER BY r.i),
               array_agg(r.fp ORDER BY r.i), array_agg(r.idem ORDER BY r.i), array_agg(DISTINCT r.account_id), array_agg(c.daily_limit ORDER BY r.i) `;
      const variants: Array<[string, string]> = [
        ['as written (dense_rank over the rows)', aggs.replace('KK', 'r.k') + from.replace('K\n', 'dense_rank() OVER (ORDER BY x.account_id)::integer AS k\n')],
        ['without the window', aggs.replace('KK', 'NULL::int') + from.replace('K\n', '0 AS k\n')],
        ['the parse alone', `SELECT count(*) FROM json_populate_recordset(NULL::streams.send_row, $1::json) x WHERE $2::bigint IS NULL`],
      ];
      const cpu = new Map<string, number[]>();
      for (let k = 0; k < calls; k++) {
        for (const [label, q] of k % 2 ? [...variants].reverse() : variants) {
          const b0 = backendMs(pid);
          for (let j = 0; j < 20; j++) await c.query(q, [lastBatch, null]);
          cpu.set(label, [...(cpu.get(label) ?? []), ((backendMs(pid) - b0) * 1000) / (20 * size)]);
        }
      }
      for (const [label, xs] of cpu) {
        const sorted = [...xs].sort((a, b) => a - b);
        console.log(`step 1, ${label}: median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} µs a send (${calls} rounds of 20 calls; min ${sorted[0].toFixed(1)}, max ${sorted[sorted.length - 1].toFixed(1)})`);
      }
    }
    if (PGSS) {
      await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await c.query('SELECT pg_stat_statements_reset()');
    }
    bytes = 0;
    // WALREL=1: the measured calls' WAL by relation and record kind (pg_walinspect; the calls roll back, their records stay)
    const walFrom = process.env.WALREL === '1' ? await walMark(c) : null;
    let node = 0;
    let backend = 0;
    for (let k = 0; k < calls; k++) {
      const r = await once();
      node += r.node;
      backend += r.backend;
    }
    const m = calls * size;
    console.log(`send-batch-write: ${calls} calls of ${size}: node ${((node * 1000) / m).toFixed(1)} µs, PostgreSQL backend ${((backend * 1000) / m).toFixed(1)} µs, parameter ${(bytes / m).toFixed(0)} B a message; load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
    if (walFrom) await printWalByRelation(c, walFrom, m, { indent: '  ' });
    if (process.env.EXPLAIN === '1') {
      c.on('notice', (n) => { if (process.env.EXPLAIN_ALL === "1" || /coalesce\(sum\(x.n\)/.test(String((n as { message: string }).message))) console.log(String((n as { message: string }).message)); });
      await c.query(`LOAD 'auto_explain'`);
      await c.query(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_analyze = on; SET auto_explain.log_level = notice`);
      await once();
      await new Promise((r) => setTimeout(r, 200));
    }
    if (PGSS) {
      const top = await c.query<{ us: number; calls: string; query: string }>(
        `SELECT total_exec_time * 1000 / $1 AS us, calls::text, regexp_replace(query, '\\s+', ' ', 'g') AS query FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT 10`,
        [m],
      );
      for (const r of top.rows) console.log(`  ${r.us.toFixed(1).padStart(6)} µs  ${r.calls.padStart(5)} calls  ${r.query.slice(0, 150)}`);
    }
    await c.end();
  } finally {
    await db.stop();
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
