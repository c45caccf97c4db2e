/**
 * Webhooks under SIGKILL (issue 15, "Speed and faults"): deliveries queued in PostgreSQL through the consumer, then a
 * webhooks worker process (the delivery worker of WebhooksModule, real PostgreSQL) killed with SIGKILL at random
 * points while it delivers, and started again each time. A local receiver records every request (webhook URL and
 * `webhook-id`) and checks each signature. At the end: every queued delivery must have been received (lost = 0) and
 * every delivery row must be `succeeded`; requests received more than once are the at-least-once duplicates: printed,
 * each checked to carry the same webhook-id (receivers dedupe on it), and compared with the rows that were in flight
 * (`delivering`) at each kill. Ceiling: the same workload delivered by one worker that is never killed (same run).
 *
 * The consumer side (`kafka` as third argument): the killed process is the whole service, consuming dispatch's status
 * events from Kafka (librdkafka's mock cluster through kcat) and delivering them, while the parent publishes the
 * events in rounds all along; kills at random points, restart each time. Printed: lost, repeats by webhook-id, and the
 * time lost against the same run never killed (the ceiling), with the longest gap between two received requests.
 *
 *   node scripts/build.mjs --server-only
 *   node dist/bench/webhooks-crash.js [events=2000] [kills=6]
 *   node dist/bench/webhooks-crash.js [events=2000] [kills=3] kafka
 */
import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { MessageStatusChangedV1, type EventData } from '@switchboard/contracts';
import { createEnvelope, DevMailbox, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, KafkaEventBus, PlatformModule, RequestContext, startEmbeddedPostgres, TokenVerifier } from '@switchboard/platform';
import { startKafkaMock } from '@switchboard/platform/testing';
import { WebhookService, WebhooksModule } from '@switchboard/webhooks';

const SECRET = 'bench-secret-of-the-webhooks-crash';
const ACCOUNTS = 10;
const HOOKS_PER_ACCOUNT = 10;

const machine = () => `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown cpu'}, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`;

function platform(url: string, bus: InMemoryEventBus | KafkaEventBus = new InMemoryEventBus()) {
  return PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(generateSigningKeys().publicKey), databaseUrl: url, processName: 'webhooks-crash' });
}

/** The worker process: delivers until killed. Lease 3 s (timeout 1 s), so a killed worker's rows come back quickly. */
async function child(url: string): Promise<void> {
  @Module({ imports: [platform(url), WebhooksModule.register({ secret: SECRET, allowLoopback: true, allowedPorts: 'any', pollMs: 20, concurrency: 64, perHostConcurrency: 64, timeoutMs: 1000, leaseMs: 3000, migrationsRun: false })] })
  class ChildModule {}
  const app = await NestFactory.createApplicationContext(ChildModule, { logger: ['error'] });
  await app.init();
  process.send?.('ready');
}

/** The whole service on Kafka (consumer and worker): consumes and delivers until killed. */
async function serviceChild(url: string, brokers: string): Promise<void> {
  const bus = new KafkaEventBus({ clientId: 'webhooks-crash', brokers: brokers.split(','), consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 8000, maxWaitTimeMs: 200 } });
  @Module({ imports: [platform(url, bus), WebhooksModule.register({ secret: SECRET, allowLoopback: true, allowedPorts: 'any', pollMs: 20, concurrency: 64, perHostConcurrency: 64, timeoutMs: 1000, leaseMs: 3000, migrationsRun: false })] })
  class ServiceModule {}
  const app = await NestFactory.createApplicationContext(ServiceModule, { logger: ['error'] });
  await app.init();
  process.send?.('ready');
}

function statusEvent(acc: string): EventData<typeof MessageStatusChangedV1> {
  const now = new Date().toISOString();
  return { messageUuid: randomUUID(), accountId: acc, streamId: '1', streamUid: '11111111-1111-4111-8111-111111111111', campaignId: null, sender: 'Acme', destination: '+14155552671', status: 'delivered', outgoingStatus: null, error: null, vendorId: '1', providerMessageId: 'p', sentAt: now, deliveredAt: now, mcc: '310', mnc: '260', occurredAt: now };
}

async function parent(events: number, kills: number): Promise<void> {
  const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bench-webhooks-crash-'));
  const pg = await startEmbeddedPostgres({ dataDir: pgDir, persistent: false });
  const url = pg.url();
  const sql = new Client({ connectionString: url });
  await sql.connect();

  // the receiver: every request by (path, webhook-id), each signature checked against its webhook's secret
  const secrets = new Map<string, Buffer>();
  const received = new Map<string, number>();
  let requests = 0;
  let badSignatures = 0;
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests++;
      const id = String(req.headers['webhook-id']);
      const key = secrets.get(req.url ?? '');
      const expected = key ? `v1,${createHmac('sha256', key).update(`${id}.${String(req.headers['webhook-timestamp'])}.${body}`).digest('base64')}` : '';
      if (!String(req.headers['webhook-signature']).split(' ').includes(expected)) badSignatures++;
      const k = `${req.url} ${id}`;
      received.set(k, (received.get(k) ?? 0) + 1);
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // webhooks and the queue, through the module (its consumer queues the deliveries); no worker here (pollMs 0)
  const bus = new InMemoryEventBus();
  @Module({ imports: [platform(url, bus), WebhooksModule.register({ secret: SECRET, allowLoopback: true, allowedPorts: 'any', pollMs: 0 })] })
  class QueueModule {}
  const app = await NestFactory.createApplicationContext(QueueModule, { logger: ['error'] });
  await app.init();
  const webhooks = app.get(WebhookService);
  const asAccount = <T>(acc: string, fn: () => Promise<T>) =>
    RequestContext.run({ traceId: 'bench', ip: null, principal: { kind: 'user', userId: 'bench', email: null, accountId: acc, permissions: [], roles: [], superAdmin: false } }, fn);
  for (let a = 1; a <= ACCOUNTS; a++) {
    for (let h = 0; h < HOOKS_PER_ACCOUNT; h++) {
      const w = await asAccount(String(a), () => webhooks.create({ name: `h${h}`, url: `${base}/hook/${a}/${h}`, trigger: 'message_status_change' }));
      secrets.set(`/hook/${a}/${h}`, Buffer.from((w.secret ?? '').slice(6), 'base64'));
    }
  }
  const queueRound = async () => {
    const evs = Array.from({ length: events }, (_, i) => createEnvelope(MessageStatusChangedV1, statusEvent(String((i % ACCOUNTS) + 1)), { accountId: String((i % ACCOUNTS) + 1), source: 'dispatch' }));
    for (let i = 0; i < evs.length; i += 500) await bus.publish(evs.slice(i, i + 500));
    await bus.drain();
  };

  const start = (): Promise<ChildProcess> =>
    new Promise((resolve, reject) => {
      const c = fork(__filename, ['child', url], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      c.once('message', () => resolve(c));
      c.once('exit', (code) => reject(new Error(`worker exited (${code}) before it was ready`)));
    });
  const count = async (q: string) => Number((await sql.query<{ n: string }>(q)).rows[0].n);
  const waitAllDone = async () => {
    for (;;) {
      if ((await count(`SELECT count(*) AS n FROM webhooks.delivery WHERE state <> 'succeeded'`)) === 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  // ceiling: the same workload by a worker that is never killed
  await queueRound();
  let t0 = performance.now();
  let worker = await start();
  await waitAllDone();
  const cleanSec = (performance.now() - t0) / 1000;
  worker.kill('SIGTERM');
  await new Promise((r) => worker.once('exit', r));
  const cleanQueued = await count(`SELECT count(*) AS n FROM webhooks.delivery`);
  received.clear();
  requests = 0;
  await sql.query(`DELETE FROM webhooks.request_log`);
  await sql.query(`DELETE FROM webhooks.delivery`);

  // the drill
  await queueRound();
  const queued = (await sql.query<{ path: string; event_id: string }>(`SELECT '/hook/' || w.account_id::text || '/' || substr(w.name, 2) AS path, d.event_id::text FROM webhooks.delivery d JOIN webhooks.webhook w ON w.id = d.webhook_id`)).rows;
  const inFlightAtKills: number[] = [];
  t0 = performance.now();
  worker = await start();
  for (let k = 0; k < kills; k++) {
    await new Promise((r) => setTimeout(r, 300 + Math.random() * 1500));
    worker.kill('SIGKILL');
    await new Promise((r) => worker.once('exit', r));
    inFlightAtKills.push(await count(`SELECT count(*) AS n FROM webhooks.delivery WHERE state = 'delivering'`));
    worker = await start();
  }
  await waitAllDone();
  const drillSec = (performance.now() - t0) / 1000;
  worker.kill('SIGTERM');
  await new Promise((r) => worker.once('exit', r));

  const expected = new Set(queued.map((q) => `${q.path} ${q.event_id}`));
  let lost = 0;
  for (const k of expected) if (!received.has(k)) lost++;
  const unexpected = [...received.keys()].filter((k) => !expected.has(k)).length;
  const duplicated = [...received.values()].filter((n) => n > 1);
  const extra = duplicated.reduce((s, n) => s + n - 1, 0);
  const logRows = await count(`SELECT count(*) AS n FROM webhooks.request_log`);

  console.log(`machine: ${machine()} (shared with other engineers' runs)`);
  console.log(`workload: ${ACCOUNTS} accounts x ${HOOKS_PER_ACCOUNT} webhooks, ${events} status events -> ${queued.length} deliveries`);
  console.log(`ceiling (one worker, never killed): ${cleanQueued} deliveries in ${cleanSec.toFixed(2)} s, ${(cleanQueued / cleanSec).toFixed(0)}/s`);
  console.log(`drill: ${kills} SIGKILLs at random points, ${queued.length} deliveries in ${drillSec.toFixed(2)} s, ${(queued.length / drillSec).toFixed(0)}/s (${((queued.length / drillSec / (cleanQueued / cleanSec)) * 100).toFixed(0)} % of the ceiling; each kill costs the 3 s lease of its in-flight rows)`);
  console.log(`in flight (delivering) at each kill: ${inFlightAtKills.join(', ')} (sum ${inFlightAtKills.reduce((a, b) => a + b, 0)})`);
  console.log(`lost: ${lost} (queued deliveries never received); unexpected requests: ${unexpected}; bad signatures: ${badSignatures}`);
  console.log(`duplicated: ${duplicated.length} deliveries received more than once (${extra} extra requests of ${requests}), every repeat carried the same webhook-id as the first request of its delivery (the receiver counts by URL and webhook-id), so a receiver deduplicating on it sees each event once`);
  console.log(`request log: ${logRows} rows (${queued.length} deliveries; a killed attempt that was sent but not recorded has no row, its retry has)`);

  await app.close();
  await sql.end();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await pg.stop();
  fs.rmSync(pgDir, { recursive: true, force: true });
  if (lost > 0 || unexpected > 0 || badSignatures > 0) process.exit(1);
}


/** The consumer side: the killed process consumes from Kafka and delivers; events are published all along. */
async function consumerDrill(events: number, kills: number): Promise<void> {
  const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bench-webhooks-crash-'));
  const pg = await startEmbeddedPostgres({ dataDir: pgDir, persistent: false });
  const url = pg.url();
  const kafka = await startKafkaMock(1);
  const sql = new Client({ connectionString: url });
  await sql.connect();
  const secrets = new Map<string, Buffer>();
  const received = new Map<string, number>();
  let requests = 0;
  let badSignatures = 0;
  let last = 0;
  let longestGap = 0;
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests++;
      const now = performance.now();
      if (last) longestGap = Math.max(longestGap, now - last);
      last = now;
      const id = String(req.headers['webhook-id']);
      const key = secrets.get(req.url ?? '');
      const expected = key ? `v1,${createHmac('sha256', key).update(`${id}.${String(req.headers['webhook-timestamp'])}.${body}`).digest('base64')}` : '';
      if (!String(req.headers['webhook-signature']).split(' ').includes(expected)) badSignatures++;
      const k = `${req.url} ${id}`;
      received.set(k, (received.get(k) ?? 0) + 1);
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // webhooks through the module (migrations, sealed secrets); nothing consumed or delivered here (in-memory bus, pollMs 0)
  @Module({ imports: [platform(url), WebhooksModule.register({ secret: SECRET, allowLoopback: true, allowedPorts: 'any', pollMs: 0 })] })
  class SetupModule {}
  const app = await NestFactory.createApplicationContext(SetupModule, { logger: ['error'] });
  await app.init();
  const webhooks = app.get(WebhookService);
  const asAccount = <T>(acc: string, fn: () => Promise<T>) =>
    RequestContext.run({ traceId: 'bench', ip: null, principal: { kind: 'user', userId: 'bench', email: null, accountId: acc, permissions: [], roles: [], superAdmin: false } }, fn);
  const hooks = new Map<string, string[]>();
  for (let a = 1; a <= ACCOUNTS; a++) {
    for (let h = 0; h < HOOKS_PER_ACCOUNT; h++) {
      const p = `/hook/${a}/${h}`;
      const w = await asAccount(String(a), () => webhooks.create({ name: `h${h}`, url: `${base}${p}`, trigger: 'message_status_change' }));
      secrets.set(p, Buffer.from((w.secret ?? '').slice(6), 'base64'));
      hooks.set(String(a), [...(hooks.get(String(a)) ?? []), p]);
    }
  }
  const producer = new KafkaEventBus({ clientId: 'webhooks-crash-producer', brokers: kafka.url.split(',') });
  const start = (): Promise<ChildProcess> =>
    new Promise((resolve, reject) => {
      const c = fork(__filename, ['service', url, kafka.url], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      c.once('message', () => resolve(c));
      c.once('exit', (code) => reject(new Error(`service exited (${code}) before it was ready`)));
    });
  const count = async (q: string) => Number((await sql.query<{ n: string }>(q)).rows[0].n);

  /** Publishes `events` in rounds of 50 every 50 ms while the service runs (and is killed `k` times); until all is delivered. */
  const run = async (k: number) => {
    received.clear();
    requests = 0;
    last = 0;
    longestGap = 0;
    const expected = new Set<string>();
    let worker = await start();
    const t0 = performance.now();
    let publishing = true;
    const publisher = (async () => {
      for (let i = 0; i < events; i += 50) {
        const evs = Array.from({ length: Math.min(50, events - i) }, (_, j) => {
          const acc = String(((i + j) % ACCOUNTS) + 1);
          return createEnvelope(MessageStatusChangedV1, statusEvent(acc), { accountId: acc, source: 'dispatch' });
        });
        await producer.publish(evs);
        for (const e of evs) for (const p of hooks.get(String(e.accountId)) ?? []) expected.add(`${p} ${e.id}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      publishing = false;
    })();
    const atKills: string[] = [];
    for (let i = 0; i < k; i++) {
      await new Promise((r) => setTimeout(r, 500 + Math.random() * 2000));
      worker.kill('SIGKILL');
      await new Promise((r) => worker.once('exit', r));
      atKills.push(`${await count(`SELECT count(*) AS n FROM webhooks.processed_events`)} consumed / ${await count(`SELECT count(*) AS n FROM webhooks.delivery WHERE state = 'delivering'`)} in flight`);
      worker = await start();
    }
    await publisher;
    while (publishing || ![...expected].every((x) => received.has(x))) await new Promise((r) => setTimeout(r, 50));
    while ((await count(`SELECT count(*) AS n FROM webhooks.delivery WHERE state <> 'succeeded'`)) > 0) await new Promise((r) => setTimeout(r, 50));
    const sec = (performance.now() - t0) / 1000;
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
    const lost = [...expected].filter((x) => !received.has(x)).length;
    const foreign = [...received.keys()].filter((x) => !expected.has(x)).length;
    const repeated = [...received.values()].filter((n) => n > 1).length;
    const extra = [...received.values()].reduce((a, n) => a + n - 1, 0);
    const rows = await count(`SELECT count(*) AS n FROM webhooks.delivery`);
    await sql.query(`DELETE FROM webhooks.request_log`);
    await sql.query(`DELETE FROM webhooks.delivery`);
    return { sec, expected: expected.size, lost, foreign, repeated, extra, rows, atKills, gap: longestGap / 1000 };
  };

  const clean = await run(0);
  const drill = await run(kills);
  console.log(`machine: ${machine()} (shared with other engineers' runs)`);
  console.log(`workload: ${ACCOUNTS} accounts x ${HOOKS_PER_ACCOUNT} webhooks, ${events} status events published on Kafka in rounds of 50 every 50 ms -> ${drill.expected} deliveries; the service process consumes and delivers (session timeout 6 s, lease 3 s)`);
  console.log(`ceiling (never killed): ${clean.expected} deliveries in ${clean.sec.toFixed(2)} s from the first publish; longest gap between two received requests ${clean.gap.toFixed(2)} s; ${clean.extra} repeats`);
  console.log(`drill (${kills} SIGKILLs at random points): ${drill.expected} deliveries in ${drill.sec.toFixed(2)} s; time lost ${(drill.sec - clean.sec).toFixed(2)} s (${((drill.sec - clean.sec) / Math.max(1, kills)).toFixed(2)} s a kill); longest gap ${drill.gap.toFixed(2)} s`);
  console.log(`at each kill: ${drill.atKills.join('; ')}`);
  console.log(`lost: ${drill.lost} (published events not received by a webhook of their account); requests with an unknown webhook-id or URL: ${drill.foreign}; bad signatures: ${badSignatures}`);
  console.log(`duplicates: ${drill.repeated} deliveries received more than once (${drill.extra} extra requests of ${requests}), each repeat under the webhook-id of its first request; queue rows ${drill.rows} for ${drill.expected} deliveries (a redelivered event queued nothing twice)`);

  await producer.stop();
  await app.close();
  await sql.end();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await kafka.stop();
  await pg.stop();
  fs.rmSync(pgDir, { recursive: true, force: true });
  if (drill.lost > 0 || drill.foreign > 0 || badSignatures > 0) process.exit(1);
}

if (process.argv[2] === 'child') {
  child(process.argv[3]).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else if (process.argv[2] === 'service') {
  serviceChild(process.argv[3], process.argv[4]).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else if (process.argv[4] === 'kafka') {
  consumerDrill(Number(process.argv[2] ?? 2000), Number(process.argv[3] ?? 3)).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else {
  parent(Number(process.argv[2] ?? 2000), Number(process.argv[3] ?? 6)).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
