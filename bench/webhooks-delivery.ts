/**
 * Webhook deliveries to a local receiver, through the webhooks module (real PostgreSQL): each delivery claimed from
 * the queue (the buckets this process's session holds, decision 0059), signed (Standard Webhooks HMAC-SHA256), POSTed
 * over keep-alive HTTP through the SSRF guard, and recorded in the request log with the delivery's outcome (one
 * statement per batch of successes).
 * Fixed workload: 10 accounts x 10 webhooks (message status change), BENCH_EVENTS status events (default 2,000) spread
 * over the accounts: each event queues 10 deliveries (20,000 by default).
 *
 *   node scripts/build.mjs --server-only && BENCH_EVENTS=1000 node dist/bench/webhooks-delivery.js
 *
 * Figures: queueing (the consumer: events/s, deliveries queued/s), delivery from a filled queue (deliveries/s, CPU µs
 * per delivery of the worker's process and of PostgreSQL, request-log rows written), end to end (events published on
 * the bus while the worker runs: the consumer queues, the worker delivers; deliveries/s from the first publish to the
 * last delivery recorded), and a ceiling from the same run: bare node:http posting the same signed payloads to the
 * same receiver at the same concurrency, no database. Then fairness: one account's receiver hangs until the timeout
 * (2 s) while another account's 2,000 deliveries, published in rounds, go to the healthy receiver: its rate and
 * latency (queued to recorded: p50, p99, max) with the hanging one beside it and without. The receivers run in child processes of their own (a receiver is the customer's server, not part of
 * the service: its CPU is printed apart); PostgreSQL apart (DATABASE_URL, or an embedded one in a temporary directory).
 * BENCH_CPU_PROFILE=<file.cpuprofile> writes a CPU profile of the delivery phase alone (open it in Chrome's DevTools).
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID, createHmac } from 'node:crypto';
import * as inspector from 'node:inspector';
import type { AddressInfo } from 'node:net';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { MessageStatusChangedV1, type EventData } from '@switchboard/contracts';
import { createEnvelope, DevMailbox, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, PlatformModule, RequestContext, startEmbeddedPostgres, TokenVerifier } from '@switchboard/platform';
import { DeliveryService, WebhookService, WebhooksModule } from '@switchboard/webhooks';
import { Client } from 'pg';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const ACCOUNTS = 10;
const HOOKS_PER_ACCOUNT = 10;
const CONCURRENCY = 64;
/** BENCH_PIPELINING: requests in flight per keep-alive connection (the service's `pipelining`; default 1). */
const PIPELINING = Number(process.env.BENCH_PIPELINING ?? 1);

/** The receiver process: answers 204 at once ('ok') or never ('hang'); counts requests; answers the parent's questions. */
function receiverProcess(behaviour: 'ok' | 'hang'): void {
  let n = 0;
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      if (behaviour === 'hang') return void hanging.add(res);
      res.writeHead(204);
      res.end();
    });
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
  process.on('message', (m: string) => {
    if (m === 'count') process.send?.({ count: n, cpu: cpu() });
    if (m === 'close') {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      server.close(() => process.exit(0));
    }
  });
}

interface Receiver {
  url: string;
  /** Requests received so far, and the receiver process's CPU seconds. */
  count: () => Promise<{ count: number; cpu: number }>;
  close: () => Promise<void>;
}

function receiver(behaviour: 'ok' | 'hang'): Promise<Receiver> {
  return new Promise((resolve, reject) => {
    const c: ChildProcess = fork(__filename, ['receiver', behaviour], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    c.once('error', reject);
    c.once('message', (m: { port: number }) =>
      resolve({
        url: `http://127.0.0.1:${m.port}`,
        count: () =>
          new Promise((r) => {
            c.once('message', (x: { count: number; cpu: number }) => r(x));
            c.send('count');
          }),
        close: () =>
          new Promise((r) => {
            c.once('exit', () => r());
            c.send('close');
          }),
      }),
    );
  });
}

/**
 * CPU seconds of the embedded PostgreSQL, from /proc: the postmaster's own and its reaped children's (cutime, cstime:
 * backends that ended, e.g. idle pool connections closed) plus its live children's. Null with an outside DATABASE_URL.
 */
function pgCpu(dataDir: string | null): number | null {
  if (!dataDir) return null;
  const fields = (pid: number | string) => {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  };
  try {
    const pm = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const tick = 100;
    const own = fields(pm);
    let total = (Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) / tick;
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const f = fields(pid);
        if (Number(f[1]) === pm) total += (Number(f[11]) + Number(f[12])) / tick;
      } catch {
        // gone meanwhile
      }
    }
    return total;
  } catch {
    return null;
  }
}

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

function statusEvent(acc: string): EventData<typeof MessageStatusChangedV1> {
  return {
    messageUuid: randomUUID(), accountId: acc, streamId: '1', streamUid: '11111111-1111-4111-8111-111111111111', campaignId: null, sender: 'Acme', destination: '+14155552671',
    status: 'delivered', outgoingStatus: null, error: null, vendorId: '1', providerMessageId: 'p', sentAt: new Date().toISOString(), deliveredAt: new Date().toISOString(), mcc: '310', mnc: '260', occurredAt: new Date().toISOString(),
  };
}

const us = (sec: number, n: number) => ((sec / n) * 1e6).toFixed(0);

async function main(): Promise<void> {
  let pg: Awaited<ReturnType<typeof startEmbeddedPostgres>> | null = null;
  let url = process.env.DATABASE_URL;
  const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bench-webhooks-'));
  if (!url) {
    pg = await startEmbeddedPostgres({ dataDir: pgDir, persistent: false });
    url = pg.url();
  }
  // an outside cluster's CPU is counted too when its data directory is given (BENCH_PG_DATA)
  const pgData = pg ? pgDir : (process.env.BENCH_PG_DATA ?? null);
  const keys = generateSigningKeys();
  const moduleFor = (bus: InMemoryEventBus, pollMs: number) => {
    @Module({
      imports: [
        PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: url, processName: 'bench' }),
        WebhooksModule.register({ secret: 'bench-secret-of-the-webhooks', allowLoopback: true, allowedPorts: 'any', pollMs, concurrency: CONCURRENCY, perHostConcurrency: CONCURRENCY, pipelining: PIPELINING, timeoutMs: 2000 }),
      ],
    })
    class BenchModule {}
    return BenchModule;
  };
  // the driven app: no worker loop (pollMs 0), the bench calls runOnce / tick
  const bus = new InMemoryEventBus();
  const app = await NestFactory.create<NestExpressApplication>(moduleFor(bus, 0), { logger: ['error'] });
  await app.init();
  const deliveries = app.get(DeliveryService);
  const sql = new Client({ connectionString: url });
  await sql.connect();
  const ok = await receiver('ok');

  // webhooks: created through the service (sealed secrets), as account members would
  const webhooks = app.get(WebhookService);
  const asAccount = <T>(acc: string, fn: () => Promise<T>) =>
    RequestContext.run({ traceId: 'bench', ip: null, principal: { kind: 'user', userId: 'bench', email: null, accountId: acc, permissions: [], roles: [], superAdmin: false } }, fn);
  let secret = '';
  for (let a = 1; a <= ACCOUNTS; a++) {
    for (let h = 0; h < HOOKS_PER_ACCOUNT; h++) {
      const w = await asAccount(String(a), () => webhooks.create({ name: `h${h}`, url: `${ok.url}/hook/${a}/${h}`, trigger: 'message_status_change' }));
      secret = w.secret ?? secret;
    }
  }
  const eventsFor = (n: number, accounts: number, first = 1) =>
    Array.from({ length: n }, (_, i) => {
      const acc = String(first + (i % accounts));
      return createEnvelope(MessageStatusChangedV1, statusEvent(acc), { accountId: acc, source: 'dispatch' });
    });
  const publish = async (b: InMemoryEventBus, evs: ReturnType<typeof eventsFor>) => {
    for (let i = 0; i < evs.length; i += 500) await b.publish(evs.slice(i, i + 500));
    await b.drain();
  };

  // phase 1: the consumer queues the deliveries
  let t0 = performance.now();
  await publish(bus, eventsFor(EVENTS, ACCOUNTS));
  const queueSec = (performance.now() - t0) / 1000;
  const [{ n: queued }] = (await sql.query(`SELECT count(*)::int AS n FROM webhooks.delivery`)).rows;

  // phase 2: deliveries from the filled queue (BENCH_CPU_PROFILE=<file>: a CPU profile of this phase alone)
  const profiler = process.env.BENCH_CPU_PROFILE ? new inspector.Session() : null;
  if (profiler) {
    profiler.connect();
    await new Promise((r) => profiler.post('Profiler.enable', () => profiler.post('Profiler.start', r)));
  }
  // BENCH_PG_STATEMENTS=1 (a cluster with pg_stat_statements loaded): the delivery phase's statements, printed after it
  const statements = process.env.BENCH_PG_STATEMENTS === '1';
  if (statements) await sql.query(`SELECT pg_stat_statements_reset()`);
  let r0 = await ok.count();
  const wal = async () => Number((await sql.query<{ b: string }>(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint::text AS b`)).rows[0].b);
  const wal0 = await wal();
  let c0 = cpu();
  const pg0 = pgCpu(pgData);
  t0 = performance.now();
  await deliveries.runOnce();
  const deliverSec = (performance.now() - t0) / 1000;
  const deliverCpu = cpu() - c0;
  const pg1 = pgCpu(pgData);
  let r1 = await ok.count();
  const deliverPgCpu = pg0 !== null && pg1 !== null ? pg1 - pg0 : null;
  const deliverReceiverCpu = r1.cpu - r0.cpu;
  const deliverWal = (await wal()) - wal0;
  const [{ bytes: logBytes }] = (await sql.query<{ bytes: string }>(`SELECT pg_total_relation_size('webhooks.request_log')::text AS bytes`)).rows;
  if (profiler) {
    const profile = await new Promise<unknown>((r) => profiler.post('Profiler.stop', (_e, res) => r(res.profile)));
    fs.writeFileSync(String(process.env.BENCH_CPU_PROFILE), JSON.stringify(profile));
    profiler.disconnect();
  }
  if (statements) {
    const top = await sql.query<{ calls: string; rows: string; ms: number; q: string }>(
      `SELECT calls::text, rows::text, total_exec_time AS ms, regexp_replace(left(query, 110), '\\s+', ' ', 'g') AS q FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 12`,
    );
    for (const r of top.rows) console.log(`statement: ${r.calls} calls, ${r.rows} rows, ${Number(r.ms).toFixed(0)} ms: ${r.q}`);
  }
  const [{ n: logged }] = (await sql.query(`SELECT count(*)::int AS n FROM webhooks.request_log WHERE status = 'success'`)).rows;
  const payloads = (await sql.query<{ payload: string; event_id: string }>(`SELECT payload, event_id::text FROM webhooks.delivery LIMIT $1`, [queued])).rows;

  // ceiling: bare node:http, same signed payloads, same receiver, same concurrency, no database
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const key = Buffer.from(secret.slice(6), 'base64');
  const target = new URL(`${ok.url}/hook/ceiling`);
  r0 = await ok.count();
  c0 = cpu();
  t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < payloads.length) {
        const p = payloads[next++];
        const ts = Math.floor(Date.now() / 1000);
        const sig = `v1,${createHmac('sha256', key).update(`${p.event_id}.${ts}.${p.payload}`).digest('base64')}`;
        await new Promise<void>((resolve, reject) => {
          const r = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(p.payload), 'webhook-id': p.event_id, 'webhook-timestamp': ts, 'webhook-signature': sig } }, (res) => {
            res.resume();
            res.on('end', () => resolve());
          });
          r.on('error', reject);
          r.end(p.payload);
        });
      }
    }),
  );
  const ceilSec = (performance.now() - t0) / 1000;
  const ceilCpu = cpu() - c0;
  r1 = await ok.count();
  const ceilReceiverCpu = r1.cpu - r0.cpu;
  agent.destroy();

  // phase 3, end to end: a running worker (its loop and the consumer's kick) while the events are published
  const e2e = async (events: number, accounts: number, first: number): Promise<{ n: number; sec: number; cpu: number; pgCpu: number | null }> => {
    const bus2 = new InMemoryEventBus();
    const live = await NestFactory.createApplicationContext(moduleFor(bus2, 50), { logger: ['error'] });
    await live.init();
    const evs = eventsFor(events, accounts, first);
    const before = (await ok.count()).count;
    const [{ n: hooks }] = (await sql.query(`SELECT count(*)::int AS n FROM webhooks.webhook WHERE account_id BETWEEN $1 AND $2`, [first, first + accounts - 1])).rows;
    const expected = (events / accounts) * hooks;
    const c = cpu();
    const p = pgCpu(pgData);
    const s = performance.now();
    const published = publish(bus2, evs);
    for (;;) {
      if ((await ok.count()).count - before >= expected) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await published;
    // the last answers recorded
    for (;;) {
      const [{ n }] = (await sql.query(`SELECT count(*)::int AS n FROM webhooks.delivery WHERE state <> 'succeeded'`)).rows;
      if (n === 0) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const sec = (performance.now() - s) / 1000;
    const out = { n: expected, sec, cpu: cpu() - c, pgCpu: p !== null ? (pgCpu(pgData) ?? 0) - p : null };
    await live.close();
    return out;
  };
  // BENCH_QUICK=1: the filled-queue phase and its ceiling only (profiling runs)
  const quick = process.env.BENCH_QUICK === '1';
  const none = { n: 0, sec: 0, cpu: 0, pgCpu: null };
  const e2eMany = quick ? none : await e2e(EVENTS, ACCOUNTS, 1);
  // the common shape: one webhook per account, so every event is one delivery (the consumer's cost per event is per delivery)
  if (!quick) for (let a = 1001; a <= 1100; a++) await asAccount(String(a), () => webhooks.create({ name: 'one', url: `${ok.url}/one/${a}`, trigger: 'message_status_change' }));
  const e2eOne = quick ? none : await e2e(EVENTS * HOOKS_PER_ACCOUNT, 100, 1001);

  // fairness: account 100's receiver hangs; account 1's 2,000 deliveries to the healthy one, with and without it
  const hang = await receiver('hang');
  if (!quick) await asAccount('100', () => webhooks.create({ name: 'hang', url: `${hang.url}/hang`, trigger: 'message_status_change' }));
  /**
   * The healthy account's 2,000 deliveries published in rounds (20 events, 200 deliveries, every 20 ms) while the
   * worker runs, with or without the hanging account's events in the same rounds: the healthy account's rate (first
   * publish to last outcome) and latency (queued to outcome recorded, from its delivery rows: p50, p99, max).
   */
  const healthyRun = async (withHanging: boolean): Promise<{ rate: number; p50: number; p99: number; max: number }> => {
    const before = (await ok.count()).count;
    const [{ since }] = (await sql.query<{ since: string }>(`SELECT coalesce(max(id), 0)::text AS since FROM webhooks.delivery`)).rows;
    const s = performance.now();
    let driving = true;
    const driver = (async () => {
      while (driving) {
        await deliveries.tick();
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    for (let round = 0; round < 10; round++) {
      const evs = [];
      if (withHanging) for (let i = 0; i < 20; i++) evs.push(createEnvelope(MessageStatusChangedV1, statusEvent('100'), { accountId: '100', source: 'dispatch' }));
      for (let i = 0; i < 20; i++) evs.push(createEnvelope(MessageStatusChangedV1, statusEvent('1'), { accountId: '1', source: 'dispatch' }));
      await bus.publish(evs);
      await bus.drain();
      await new Promise((r) => setTimeout(r, 20));
    }
    // until the healthy account's 2,000 are out and recorded (the hanging ones stay in flight or wait for their retry)
    for (;;) {
      const [{ n }] = (await sql.query(`SELECT count(*)::int AS n FROM webhooks.delivery WHERE account_id = 1 AND id > $1 AND state = 'succeeded'`, [since])).rows;
      if (n >= 200 * HOOKS_PER_ACCOUNT && (await ok.count()).count - before >= 200 * HOOKS_PER_ACCOUNT) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const sec = (performance.now() - s) / 1000;
    driving = false;
    await driver;
    const [l] = (await sql.query<{ p50: number; p99: number; max: number }>(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99, max(ms) AS max
         FROM (SELECT extract(epoch FROM finished_at - created_at) * 1000 AS ms FROM webhooks.delivery WHERE account_id = 1 AND id > $1) x`,
      [since],
    )).rows;
    return { rate: (200 * HOOKS_PER_ACCOUNT) / sec, p50: Number(l.p50), p99: Number(l.p99), max: Number(l.max) };
  };
  const noFair = { rate: 0, p50: 0, p99: 0, max: 0 };
  const alone = quick ? noFair : await healthyRun(false);
  const beside = quick ? noFair : await healthyRun(true);
  const held = (await hang.count()).count;

  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  const rate = queued / deliverSec;
  const ceilRate = payloads.length / ceilSec;
  console.log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, load average ${load} (shared with other engineers' runs)`);
  console.log(`workload: ${ACCOUNTS} accounts x ${HOOKS_PER_ACCOUNT} webhooks, ${EVENTS} status events -> ${queued} deliveries; receiver in its own process`);
  console.log(`queueing (consumer): ${(EVENTS / queueSec).toFixed(0)} events/s, ${(queued / queueSec).toFixed(0)} deliveries queued/s`);
  console.log(`delivery (filled queue): ${rate.toFixed(0)} deliveries/s (${deliverSec.toFixed(2)} s), worker ${us(deliverCpu, queued)} µs CPU per delivery${deliverPgCpu !== null ? `, PostgreSQL ${us(deliverPgCpu, queued)} µs` : ''}, receiver ${us(deliverReceiverCpu, queued)} µs; ${logged} request-log rows; WAL ${(deliverWal / queued).toFixed(0)} bytes per delivery; request log ${(Number(logBytes) / logged).toFixed(0)} bytes per row (with its indexes)`);
  if (deliverPgCpu !== null) {
    const both = (deliverCpu + deliverPgCpu) / queued;
    console.log(`delivery CPU, worker and PostgreSQL: ${(both * 1e6).toFixed(0)} µs per delivery: ${(os.cpus().length / both).toFixed(0)} deliveries/s if the ${os.cpus().length} cores were ours (receiver apart)`);
  }
  console.log(`ceiling (bare node:http, same signed payloads, same receiver, concurrency ${CONCURRENCY}, no database): ${ceilRate.toFixed(0)} requests/s, client ${us(ceilCpu, payloads.length)} µs CPU per request, receiver ${us(ceilReceiverCpu, payloads.length)} µs`);
  console.log(`ratio: ${((rate / ceilRate) * 100).toFixed(1)} % of the ceiling's rate; worker CPU per delivery ${(deliverCpu / queued / (ceilCpu / payloads.length)).toFixed(1)}x the bare client's${deliverPgCpu !== null ? `, ${((deliverCpu + deliverPgCpu) / queued / (ceilCpu / payloads.length)).toFixed(1)}x with PostgreSQL` : ''}`);
  for (const [name, r] of [[`end to end, ${ACCOUNTS} accounts x ${HOOKS_PER_ACCOUNT} webhooks, ${EVENTS} events`, e2eMany], [`end to end, 100 accounts x 1 webhook, ${EVENTS * HOOKS_PER_ACCOUNT} events`, e2eOne]] as const) {
    console.log(`${name}: ${r.n} deliveries in ${r.sec.toFixed(2)} s, ${(r.n / r.sec).toFixed(0)} deliveries/s (published, queued, delivered, recorded), worker ${us(r.cpu, r.n)} µs CPU per delivery${r.pgCpu !== null ? `, PostgreSQL ${us(r.pgCpu, r.n)} µs` : ''}`);
  }
  const fair = (r: typeof alone) => `${r.rate.toFixed(0)} deliveries/s, latency queued to recorded p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms, max ${r.max.toFixed(0)} ms`;
  console.log(`fairness (2,000 deliveries of a healthy account published in 10 rounds, 20 ms apart): alone ${fair(alone)}; beside an account whose receiver hangs until the 2 s timeout: ${fair(beside)} (${held} requests held by the hanging receiver)`);

  await hang.close();
  await ok.close();
  await sql.end();
  await app.close();
  if (pg) await pg.stop();
  fs.rmSync(pgDir, { recursive: true, force: true });
}

if (process.argv[2] === 'receiver') receiverProcess(process.argv[3] === 'hang' ? 'hang' : 'ok');
else
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
