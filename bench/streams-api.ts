/**
 * Stream API throughput and latency: `POST /api/streams/messages` with a stream token, each send priced, charged,
 * stored and its outbox events written before the answer (durable: PostgreSQL with fsync and synchronous commit on).
 *
 *   node scripts/build.mjs --server-only && node dist/bench/streams-api.js
 *
 * Environment: DATABASE_URL (else an embedded PostgreSQL in a temporary directory), BENCH_RATE (sends a second of the
 * fixed-rate phase, default 3000), BENCH_SECONDS (default 10), BENCH_CONNECTIONS (keep-alive connections, default 64),
 * BENCH_BATCHES_IN_FLIGHT (the module's sendBatchesInFlight; default the module's).
 *
 * Sends that arrive together share one statement and one commit (group commit, docs/decisions/0016-stream-api-group-commit.md).
 * The server (Nest on Express, the streams module, the outbox relay on the in-memory bus) runs in this process; the
 * load comes from a worker thread speaking raw HTTP/1.1 on keep-alive sockets, so client and server share the machine.
 * Phase 1 offers a fixed rate and measures each send from its scheduled time (no coordinated omission); phase 2 is
 * closed-loop, as fast as the connections go.
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import { ALL_PERMISSIONS, BalanceAdjustedV1, CustomerCreatedV1, PriceChangedV1 } from '@switchboard/contracts';
import {
  configureHttpApp,
  createEnvelope,
  DevMailbox,
  generateSigningKeys,
  InMemoryEventBus,
  InMemoryRealtime,
  loadOrCreateSigningKeys,
  PlatformModule,
  startEmbeddedPostgres,
  TokenSigner,
  TokenVerifier,
  type RunningPostgres,
} from '@switchboard/platform';
import { StreamsModule } from '@switchboard/streams';
import { Dispatcher, DispatchModule, embeddedDispatchOptions } from '@switchboard/dispatch';
import { AccountsBootstrapService } from '@switchboard/accounts';
import { startEmbeddedServer } from '../apps/platform/src/embedded-server';
import { loadPlatformConfig } from '../apps/platform/src/platform.config';

interface LoadSpec {
  port: number;
  token: string;
  connections: number;
  /** 0: closed loop. */
  rate: number;
  seconds: number;
  phase: string;
}

interface LoadResult {
  phase: string;
  sent: number;
  accepted: number;
  failed: Record<string, number>;
  seconds: number;
  latenciesMs: number[];
}

// ---------------------------------------------------------------- load generator (worker thread)

function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve) => {
    const latencies: number[] = [];
    const failed: Record<string, number> = {};
    let accepted = 0;
    let sent = 0;
    let seq = 0;
    const start = performance.now();
    const end = start + spec.seconds * 1000;
    const interval = spec.rate > 0 ? 1000 / spec.rate : 0;
    let nextSlot = start;
    let open = spec.connections;
    const phone = (n: number) => `+1415555${String(1000 + (n % 8999)).padStart(4, '0')}`;
    const request = (): { bytes: Buffer; scheduled: number } | null => {
      const now = performance.now();
      let scheduled = now;
      if (interval > 0) {
        if (nextSlot >= end) return null;
        scheduled = nextSlot;
        nextSlot += interval;
      } else if (now >= end) return null;
      const n = seq++;
      const body = `{"phone":"${phone(n)}","message":"Your order ${spec.phase}-${n} has shipped"}`;
      const head = `POST /api/streams/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${spec.token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n`;
      return { bytes: Buffer.from(head + body), scheduled };
    };
    const done = () => {
      if (--open === 0) resolve({ phase: spec.phase, sent, accepted, failed, seconds: (performance.now() - start) / 1000, latenciesMs: latencies });
    };
    for (let c = 0; c < spec.connections; c++) {
      const socket = net.connect(spec.port, '127.0.0.1');
      socket.setNoDelay(true);
      let buf = Buffer.alloc(0);
      let current: { scheduled: number } | null = null;
      const next = () => {
        const r = request();
        if (!r) {
          socket.end();
          done();
          return;
        }
        const wait = r.scheduled - performance.now();
        const go = () => {
          current = r;
          sent++;
          socket.write(r.bytes);
        };
        if (wait > 1) setTimeout(go, wait);
        else go();
      };
      socket.on('connect', next);
      socket.on('data', (chunk) => {
        buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
        for (;;) {
          const headEnd = buf.indexOf('\r\n\r\n');
          if (headEnd < 0) return;
          const head = buf.subarray(0, headEnd).toString('latin1');
          const len = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
          if (buf.length < headEnd + 4 + len) return;
          const status = Number(head.slice(9, 12));
          const body = buf.subarray(headEnd + 4, headEnd + 4 + len).toString('utf8');
          buf = buf.subarray(headEnd + 4 + len);
          if (current) latencies.push(performance.now() - current.scheduled);
          if (status === 202) accepted++;
          else {
            const code = /"code":"([^"]+)"/.exec(body)?.[1] ?? String(status);
            failed[code] = (failed[code] ?? 0) + 1;
          }
          current = null;
          next();
        }
      });
      socket.on('error', (e) => {
        failed[e.message] = (failed[e.message] ?? 0) + 1;
        done();
      });
    }
  });
}

if (!isMainThread) {
  void runLoad(workerData as LoadSpec).then((r) => parentPort?.postMessage(r));
}

// ---------------------------------------------------------------- server and report (main thread)

function load(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(__filename, { workerData: spec });
    w.once('message', (r: LoadResult) => {
      void w.terminate();
      resolve(r);
    });
    w.once('error', reject);
  });
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** CPU seconds used by the PostgreSQL server (postmaster and every backend), from /proc; 0 where /proc is missing. */
function postgresCpuSeconds(postmasterPid: number | null): number {
  if (!postmasterPid || !fs.existsSync('/proc')) return 0;
  const tick = 100;
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      if (Number(entry) === postmasterPid || ppid === postmasterPid) total += (Number(fields[11]) + Number(fields[12])) / tick;
    } catch {
      /* the process ended meanwhile */
    }
  }
  return total;
}

interface CpuMark {
  node: NodeJS.CpuUsage;
  pg: number;
  elu: ReturnType<typeof performance.eventLoopUtilization>;
}

function report(r: LoadResult, cpu?: { nodeMs: number; pgMs: number; serverLoop: number }): void {
  const sorted = [...r.latenciesMs].sort((x, y) => x - y);
  const f = (n: number) => n.toFixed(1).padStart(7);
  console.log(
    `${r.phase.padEnd(22)} sent ${String(r.sent).padStart(6)}  accepted/s ${String(Math.round(r.accepted / r.seconds)).padStart(5)}  ` +
      `p50 ${f(pct(sorted, 50))} ms  p90 ${f(pct(sorted, 90))} ms  p99 ${f(pct(sorted, 99))} ms  max ${f(sorted[sorted.length - 1] ?? NaN)} ms` +
      (Object.keys(r.failed).length ? `  refused ${JSON.stringify(r.failed)}` : ''),
  );
  if (cpu && r.accepted) {
    console.log(
      `${''.padEnd(22)} CPU per accepted send: node process ${(cpu.nodeMs / r.accepted).toFixed(3)} ms (server + load generator), PostgreSQL ${(cpu.pgMs / r.accepted).toFixed(3)} ms; server event loop busy ${(cpu.serverLoop * 100).toFixed(0)}%`,
    );
  }
}

/**
 * BENCH_PLATFORM=1: the whole embedded platform as `npm start` runs it (every service module, the in-memory bus
 * acknowledged when handled, the SMS simulator answering with a delivery report after about 2 s, 95% delivered), its
 * demo account given a TPS and credit through the super-admin API, a stream created through the API; then a fixed
 * rate of sends, each followed to its final status through the stream statistics.
 */
async function platformMain(): Promise<void> {
  const rate = Number(process.env.BENCH_RATE ?? 3000);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
  const cpus = os.cpus();
  console.log(`machine: ${cpus.length} x ${cpus[0]?.model ?? 'unknown cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-platform-'));
  fs.chmodSync(tmp, 0o755);
  const port = await new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  const server = await startEmbeddedServer(loadPlatformConfig({ SWITCHBOARD_DATA_DIR: tmp, PORT: String(port) }), new Logger('bench'));
  try {
    const demo = await server.app.get(AccountsBootstrapService).seed({ demoAccountName: 'Demo account' });
    const acc = demo.demoAccountId;
    const signer = new TokenSigner(loadOrCreateSigningKeys(path.join(tmp, 'keys')).privateKey);
    const root = signer.signAccess({ sub: '1', email: 'root@local', acc, perms: [], roles: [], sa: true, sid: 'bench-root' }, 900);
    const member = signer.signAccess({ sub: '1', email: 'bench@local', acc, perms: [...ALL_PERMISSIONS], roles: [], sa: false, sid: 'bench' }, 900);
    const api = async (token: string, method: string, p: string, body?: unknown) => {
      const res = await fetch(`${server.url}/api${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text}`);
      return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    };
    await api(root, 'PUT', `/customers/${acc}`, { tps: 100_000, customSettings: { streams_max_messages_per_day: null } });
    await api(root, 'POST', `/customers/${acc}/balance`, { amount: 1_000_000, reason: 'bench' });
    const sender = await api(member, 'POST', '/senders', { name: 'Bench', value: 'Bench' });
    await api(root, 'PUT', `/senders/superadmin/${sender.id}`, { approved: 1 });
    const stream = await api(member, 'POST', '/streams', { name: 'bench', streamType: 2, sender: 'Bench' });
    const { token } = (await api(member, 'GET', `/streams/token/${stream.id}`)) as { token: string };
    // the new TPS and credit reach streams and dispatch through the bus
    await new Promise((r) => setTimeout(r, 1000));
    const probe = await fetch(`${server.url}/api/streams/messages`, { method: 'POST', headers: { authorization: token, 'content-type': 'application/json' }, body: JSON.stringify({ phone: '+14155551000', message: 'probe' }) });
    if (probe.status !== 202) throw new Error(`a first send was refused: ${probe.status} ${await probe.text()}`);
    const pidFile = path.join(tmp, 'pg', 'postmaster.pid');
    const postmaster = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]) : null;
    const measured = async (spec: LoadSpec): Promise<LoadResult> => {
      const before = { node: process.cpuUsage(), pg: postgresCpuSeconds(postmaster), elu: performance.eventLoopUtilization() };
      const r = await load(spec);
      const node = process.cpuUsage(before.node);
      report(r, { nodeMs: (node.user + node.system) / 1000, pgMs: (postgresCpuSeconds(postmaster) - before.pg) * 1000, serverLoop: performance.eventLoopUtilization(before.elu).utilization });
      return r;
    };
    console.log(`workload: the embedded platform; POST /api/streams/messages, ${connections} keep-alive connections, the demo account, 1 segment to US`);
    const warm = await measured({ port, token, connections, rate: Math.round(rate / 2), seconds: 3, phase: 'warm-up' });
    const fixed = await measured({ port, token, connections, rate, seconds, phase: `fixed rate ${rate}/s` });
    const accepted = warm.accepted + fixed.accepted;
    const lastAnswer = Date.now();
    type Totals = Record<string, number>;
    let totals: Totals = {};
    const finals = (t: Totals) => (t.delivered ?? 0) + (t.undelivered ?? 0) + (t.sent_failed ?? 0) + (t.rejected ?? 0) + (t.no_routes ?? 0);
    while (Date.now() - lastAnswer < 180_000) {
      totals = ((await api(member, 'GET', `/streams/statistics?streamId=${stream.id}`)) as { totals: Totals }).totals;
      if (finals(totals) >= accepted) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    console.log(
      `final statuses of ${accepted} accepted sends: ${finals(totals)} (delivered ${totals.delivered ?? 0}, undelivered ${totals.undelivered ?? 0}), ` +
        `the last ${((Date.now() - lastAnswer) / 1000).toFixed(1)} s after the last answer (the simulator reports after about 2 s)`,
    );
  } finally {
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.env.BENCH_PLATFORM === '1') return platformMain();
  const rate = Number(process.env.BENCH_RATE ?? 3000);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
  const cpus = os.cpus();
  console.log(`machine: ${cpus.length} x ${cpus[0]?.model ?? 'unknown cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`);

  let pg: RunningPostgres | null = null;
  let tmp: string | null = null;
  let url = process.env.DATABASE_URL;
  if (!url) {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-streams-'));
    fs.chmodSync(tmp, 0o755);
    pg = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pg'), persistent: false });
    const admin = new Client({ connectionString: pg.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE bench');
    await admin.end();
    url = pg.url('bench');
    console.log('database: embedded PostgreSQL (fsync and synchronous_commit on)');
  } else console.log('database: DATABASE_URL');

  const keys = generateSigningKeys();
  // BENCH_DISPATCH=1: dispatch runs too, on the bus as the embedded server configures it, and every accepted send
  // is followed to its final status through the SMS simulator (delivery report after BENCH_DELIVERY_MS, default 500).
  const withDispatch = process.env.BENCH_DISPATCH === '1';
  const deliveryMs = Number(process.env.BENCH_DELIVERY_MS ?? 500);
  const bus = withDispatch ? new InMemoryEventBus({ ack: 'handled', partitions: 64 }) : new InMemoryEventBus();
  // Without dispatch, what it would do with accepted messages is not measured; the outbox relay still publishes them.
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: url, processName: 'bench', roles: { relay: process.env.BENCH_RELAY !== '0' } }),
      StreamsModule.register({
        secret: 'bench-secret-0123456789',
        defaultPriceMicros: null,
        ...(process.env.BENCH_BATCHES_IN_FLIGHT ? { sendBatchesInFlight: Number(process.env.BENCH_BATCHES_IN_FLIGHT) } : {}),
      }),
      ...(withDispatch
        ? [DispatchModule.register({ ...embeddedDispatchOptions(), seedVendors: [{ name: 'SMS simulator', serviceType: 'sms', adapter: 'simulator', config: { deliveryRatio: 1, delayMs: deliveryMs } }] })]
        : []),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.create<NestExpressApplication>(BenchModule, { logger: ['error', 'warn'] });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as net.AddressInfo).port;

  const acc = '1';
  const meta = { accountId: null, source: 'accounts' };
  await bus.publish([
    createEnvelope(CustomerCreatedV1, { accountId: acc, name: 'Bench', shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 1_000_000, dailyLimit: null, customSettings: {}, genSettings: {}, createdAt: new Date().toISOString() }, meta),
    createEnvelope(BalanceAdjustedV1, { accountId: acc, adjustmentId: randomUUID(), amountMicros: 1_000_000_000_000, currency: 'EUR', reason: 'bench' }, meta),
    createEnvelope(PriceChangedV1, { accountId: null, iso2: 'US', pricePerSegmentMicros: 5000, currency: 'EUR' }, meta),
  ]);
  await bus.drain();
  const signer = new TokenSigner(keys.privateKey);
  const console_ = signer.signAccess({ sub: '1', email: 'bench@local', acc, perms: [...ALL_PERMISSIONS], roles: [], sa: false, sid: 'bench' }, 900);
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}/api${p}`, { method, headers: { authorization: `Bearer ${console_}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    return (await res.json()) as Record<string, unknown>;
  };
  const stream = await api('POST', '/streams', { name: 'bench', streamType: 2, sender: 'Bench' });
  const { token } = (await api('GET', `/streams/token/${stream.id}`)) as { token: string };

  const probe = new Client({ connectionString: url });
  await probe.connect();
  const backend = (await probe.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  let postmaster: number | null = null;
  try {
    // read while the backend lives: its parent is the postmaster
    const stat = fs.readFileSync(`/proc/${backend}/stat`, 'utf8');
    postmaster = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    postmaster = null;
  }
  await probe.end();
  const mark = (): CpuMark => ({ node: process.cpuUsage(), pg: postgresCpuSeconds(postmaster), elu: performance.eventLoopUtilization() });
  const measured = async (spec: LoadSpec) => {
    const before = mark();
    const r = await load(spec);
    const node = process.cpuUsage(before.node);
    report(r, { nodeMs: (node.user + node.system) / 1000, pgMs: (postgresCpuSeconds(postmaster) - before.pg) * 1000, serverLoop: performance.eventLoopUtilization(before.elu).utilization });
  };

  console.log(`workload: POST /api/streams/messages, ${connections} keep-alive connections, one account and stream, 1 segment to US`);
  await measured({ port, token, connections, rate: Math.round(rate / 2), seconds: 3, phase: 'warm-up' });
  await measured({ port, token, connections, rate, seconds, phase: `fixed rate ${rate}/s` });
  await measured({ port, token, connections, rate: 0, seconds: Math.max(3, Math.round(seconds / 2)), phase: 'closed loop (max)' });

  const db = new Client({ connectionString: url });
  await db.connect();
  // the relay publishes within a few ms of a commit: give it a moment to catch up with the last batches
  for (let i = 0; i < 50; i++) {
    const [{ left }] = (await db.query<{ left: number }>(`SELECT count(*)::int AS left FROM streams.outbox WHERE published_at IS NULL`)).rows;
    if (left === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const [{ n, unpublished }] = (
    await db.query<{ n: number; unpublished: number }>(`SELECT (SELECT count(*)::int FROM streams.message) AS n, (SELECT count(*)::int FROM streams.outbox WHERE published_at IS NULL) AS unpublished`)
  ).rows;
  const [{ balance }] = (await db.query<{ balance: string }>(`SELECT sum(balance_micros)::text AS balance FROM streams.balance_slot WHERE account_id = 1`)).rows;
  console.log(`stored messages ${n}; charged ${(1_000_000_000_000 - Number(balance)) / 5000} x 5000 micros; outbox rows still unpublished at the end ${unpublished}`);
  if (withDispatch) {
    const dispatcher = app.get(Dispatcher);
    const acceptedAll = Date.now();
    while (dispatcher.stats.finalized < n && Date.now() - acceptedAll < 120_000) await new Promise((r) => setTimeout(r, 50));
    const statuses = (await db.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM dispatch.message GROUP BY status ORDER BY status`)).rows;
    const [lat] = (
      await db.query<{ p50: number; p99: number; max: number }>(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99, max(ms) AS max
           FROM (SELECT extract(epoch FROM (d.final_at - s.created_at)) * 1000 AS ms FROM dispatch.message d JOIN streams.message s ON s.uuid = d.uuid) t`,
      )
    ).rows;
    console.log(
      `dispatch: ${dispatcher.stats.finalized} of ${n} final ${((Date.now() - acceptedAll) / 1000).toFixed(1)} s after the last answer; statuses ${JSON.stringify(statuses)}; ` +
        `from the API's commit to the final status in dispatch (simulated receipt after ${deliveryMs} ms): p50 ${Math.round(lat.p50)} ms, p99 ${Math.round(lat.p99)} ms, max ${Math.round(lat.max)} ms`,
    );
  }
  await db.end();
  await app.close();
  if (pg) await pg.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}

if (isMainThread) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
