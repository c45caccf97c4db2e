/**
 * The send path's write of a campaign batch alone (docs/decisions/0167): `SendService.writeAll` of 1,000 prepared sends
 * (one stream, one campaign, the events' heads as the service builds them) into `accept_messages` on an embedded
 * PostgreSQL with the streams migrations, each call in a rolled-back transaction. Prints, a message: node's CPU of the
 * call (building the rows and the parameter, the driver), the backend's CPU (/proc), and the parameter's bytes.
 *
 *   node dist/bench/send-batch-write.js [calls=30] [batch=1000]
 * PGSS=1: pg_stat_statements (nested statements too) of the measured calls, µs of execution a message.
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
    const sendDb = {
      prepared: async (name: string, text: string, values: unknown[], client: Client) => {
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
