/**
 * Webhooks under SIGKILL (issue 15, "Speed and faults"): deliveries queued in PostgreSQL through the consumer, then a
 * webhooks worker process (the delivery worker of WebhooksModule, real PostgreSQL) killed with SIGKILL at random
 * points while it delivers, and started again each time. A local receiver records every request (webhook URL and
 * `webhook-id`) and checks each signature. At the end: every queued delivery must have been received (lost = 0) and
 * every delivery row must be `succeeded`; requests received more than once are the at-least-once duplicates: printed,
 * each checked to carry the same webhook-id (receivers dedupe on it), and compared with the requests received whose
 * outcome was not written at each kill (received requests minus request-log rows). Ceiling: the same workload delivered by one worker that is never killed (same run).
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
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { MessageStatusChangedV1, type EventData } from '@switchboard/contracts';
import { createEnvelope, DevMailbox, generateSigningKeys, InMemoryEventBus, InMemoryRealtime, KafkaEventBus, PlatformModule, RequestContext, TokenVerifier } from '@switchboard/platform';
import { startNodeProcess, startServiceCluster, startWebhookReceiver, type NodeProcess, type WebhookReceiver } from '@switchboard/platform/testing';
import { WebhookService, WebhooksModule } from '@switchboard/webhooks';
import { benchDatabase } from './bench-database';

const SECRET = 'bench-secret-of-the-webhooks-crash';
const ACCOUNTS = 10;
const HOOKS_PER_ACCOUNT = 10;

const machine = () => `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown cpu'}, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`;

function platform(url: string, bus: InMemoryEventBus | KafkaEventBus = new InMemoryEventBus()) {
  return PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(generateSigningKeys().publicKey), databaseUrl: url, processName: 'webhooks-crash' });
}

/** The worker process: delivers until killed; its buckets are free the moment its database session ends (decision 0059). */
async function child(url: string): Promise<void> {
  @Module({ imports: [platform(url), WebhooksModule.register({ secret: SECRET, allowLoopback: true, allowedPorts: 'any', pollMs: 20, concurrency: 64, perHostConcurrency: 64, timeoutMs: 1000, migrationsRun: false })] })
  class ChildModule {}
  const app = await NestFactory.createApplicationContext(ChildModule, { logger: ['error'] });
  await app.init();
  process.send?.('ready');
}

/** The whole service on Kafka (consumer and worker): consumes and delivers until killed. */
async function serviceChild(url: string, brokers: string): Promise<void> {
  const bus = new KafkaEventBus({ clientId: 'webhooks-crash', brokers: brokers.split(','), consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 8000, maxWaitTimeMs: 200 } });
  @Module({ imports: [platform(url, bus), WebhooksModule.register({ secret: SECRET, allowLoopback: true, allowedPorts: 'any', pollMs: 20, concurrency: 64, perHostConcurrency: 64, timeoutMs: 1000, migrationsRun: false })] })
  class ServiceModule {}
  const app = await NestFactory.createApplicationContext(ServiceModule, { logger: ['error'] });
  await app.init();
  process.send?.('ready');
}

function statusEvent(acc: string): EventData<typeof MessageStatusChangedV1> {
  const now = new Date().toISOString();
  return { messageUuid: randomUUID(), accountId: acc, streamId: '1', streamUid: '11111111-1111-4111-8111-111111111111', campaignId: null, sender: 'Acme', destination: '+14155552671', status: 'delivered', outgoingStatus: null, error: null, vendorId: '1', providerMessageId: 'p', sentAt: now, deliveredAt: now, mcc: '310', mnc: '260', occurredAt: now };
}

/** This file re-run as its own child (`child` or `service` mode), ready when it says so over IPC. */
const startChild = (...args: string[]): Promise<NodeProcess> => startNodeProcess(__filename, { ipc: true }, { args, stdio: 'inherit', execArgv: process.execArgv });

/** Webhooks (through the module: migrations, sealed secrets), `HOOKS_PER_ACCOUNT` per account at the receiver; by account, their paths. */
async function createWebhooks(webhooks: WebhookService, receiver: WebhookReceiver): Promise<Map<string, string[]>> {
  const asAccount = <T>(acc: string, fn: () => Promise<T>) =>
    RequestContext.run({ traceId: 'bench', ip: null, principal: { kind: 'user', userId: 'bench', email: null, accountId: acc, permissions: [], roles: [], superAdmin: false } }, fn);
  const hooks = new Map<string, string[]>();
  for (let a = 1; a <= ACCOUNTS; a++) {
    for (let h = 0; h < HOOKS_PER_ACCOUNT; h++) {
      const p = `/hook/${a}/${h}`;
      const w = await asAccount(String(a), () => webhooks.create({ name: `h${h}`, url: `${receiver.base}${p}`, trigger: 'message_status_change' }));
      receiver.addSecret(p, w.secret ?? '');
      hooks.set(String(a), [...(hooks.get(String(a)) ?? []), p]);
    }
  }
  return hooks;
}

async function parent(events: number, kills: number): Promise<void> {
  const database = await benchDatabase('sb-bench-webhooks-crash-');
  const url = database.url;
  const sql = new Client({ connectionString: url });
  await sql.connect();

  // the receiver: every request by (path, webhook-id), each signature checked against its webhook's secret
  const receiver = await startWebhookReceiver();
  const { received } = receiver;

  // webhooks and the queue, through the module (its consumer queues the deliveries); no worker here (pollMs 0)
  const bus = new InMemoryEventBus();
  @Module({ imports: [platform(url, bus), WebhooksModule.register({ secret: SECRET, allowLoopback: true, allowedPorts: 'any', pollMs: 0 })] })
  class QueueModule {}
  const app = await NestFactory.createApplicationContext(QueueModule, { logger: ['error'] });
  await app.init();
  await createWebhooks(app.get(WebhookService), receiver);
  const queueRound = async () => {
    const evs = Array.from({ length: events }, (_, i) => createEnvelope(MessageStatusChangedV1, statusEvent(String((i % ACCOUNTS) + 1)), { accountId: String((i % ACCOUNTS) + 1), source: 'dispatch' }));
    for (let i = 0; i < evs.length; i += 500) await bus.publish(evs.slice(i, i + 500));
    await bus.drain();
  };

  const start = () => startChild('child', url);
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
  await worker.stop();
  const cleanQueued = await count(`SELECT count(*) AS n FROM webhooks.delivery`);
  receiver.reset();
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
    await worker.stop('SIGKILL');
    inFlightAtKills.push(receiver.stats().requests - (await count(`SELECT count(*) AS n FROM webhooks.request_log`)));
    worker = await start();
  }
  await waitAllDone();
  const drillSec = (performance.now() - t0) / 1000;
  await worker.stop();
  const { requests, badSignatures } = receiver.stats();

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
  console.log(`drill: ${kills} SIGKILLs at random points, ${queued.length} deliveries in ${drillSec.toFixed(2)} s, ${(queued.length / drillSec).toFixed(0)}/s (${((queued.length / drillSec / (cleanQueued / cleanSec)) * 100).toFixed(0)} % of the ceiling; each kill costs the restart; its buckets are free at once)`);
  console.log(`sent but outcome not written at each kill: ${inFlightAtKills.join(', ')} (sum ${inFlightAtKills.reduce((a, b) => a + b, 0)})`);
  console.log(`lost: ${lost} (queued deliveries never received); unexpected requests: ${unexpected}; bad signatures: ${badSignatures}`);
  console.log(`duplicated: ${duplicated.length} deliveries received more than once (${extra} extra requests of ${requests}), every repeat carried the same webhook-id as the first request of its delivery (the receiver counts by URL and webhook-id), so a receiver deduplicating on it sees each event once`);
  console.log(`request log: ${logRows} rows (${queued.length} deliveries; a killed attempt that was sent but not recorded has no row, its retry has)`);

  await app.close();
  await sql.end();
  await receiver.close();
  await database.stop();
  if (lost > 0 || unexpected > 0 || badSignatures > 0) process.exit(1);
}


/** The consumer side: the killed process consumes from Kafka and delivers; events are published all along. */
async function consumerDrill(events: number, kills: number): Promise<void> {
  const database = await benchDatabase('sb-bench-webhooks-crash-');
  const url = database.url;
  // the Kafka mock cluster, a producer on it and a pool; the killed process is this file's `service` child
  const cluster = await startServiceCluster({ root: path.resolve(__dirname, '..'), databaseUrl: url, clientId: 'webhooks-crash-producer' });
  const receiver = await startWebhookReceiver();
  const { received } = receiver;

  // webhooks through the module (migrations, sealed secrets); nothing consumed or delivered here (in-memory bus, pollMs 0)
  @Module({ imports: [platform(url), WebhooksModule.register({ secret: SECRET, allowLoopback: true, allowedPorts: 'any', pollMs: 0 })] })
  class SetupModule {}
  const app = await NestFactory.createApplicationContext(SetupModule, { logger: ['error'] });
  await app.init();
  const hooks = await createWebhooks(app.get(WebhookService), receiver);
  const start = () => startChild('service', url, cluster.kafka.url);
  const count = async (q: string) => Number((await cluster.pool.query<{ n: string }>(q)).rows[0].n);

  /** Publishes `events` in rounds of 50 every 50 ms while the service runs (and is killed `k` times); until all is delivered. */
  const run = async (k: number) => {
    receiver.reset();
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
        await cluster.producer.publish(evs);
        for (const e of evs) for (const p of hooks.get(String(e.accountId)) ?? []) expected.add(`${p} ${e.id}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      publishing = false;
    })();
    const atKills: string[] = [];
    for (let i = 0; i < k; i++) {
      await new Promise((r) => setTimeout(r, 500 + Math.random() * 2000));
      await worker.stop('SIGKILL');
      atKills.push(`${await count(`SELECT count(*) AS n FROM webhooks.processed_events`)} consumed / ${receiver.stats().requests - (await count(`SELECT count(*) AS n FROM webhooks.request_log`))} sent, not recorded`);
      worker = await start();
    }
    await publisher;
    while (publishing || ![...expected].every((x) => received.has(x))) await new Promise((r) => setTimeout(r, 50));
    while ((await count(`SELECT count(*) AS n FROM webhooks.delivery WHERE state <> 'succeeded'`)) > 0) await new Promise((r) => setTimeout(r, 50));
    const sec = (performance.now() - t0) / 1000;
    await worker.stop();
    const lost = [...expected].filter((x) => !received.has(x)).length;
    const foreign = [...received.keys()].filter((x) => !expected.has(x)).length;
    const repeated = [...received.values()].filter((n) => n > 1).length;
    const extra = [...received.values()].reduce((a, n) => a + n - 1, 0);
    const rows = await count(`SELECT count(*) AS n FROM webhooks.delivery`);
    await cluster.pool.query(`DELETE FROM webhooks.request_log`);
    await cluster.pool.query(`DELETE FROM webhooks.delivery`);
    return { sec, expected: expected.size, lost, foreign, repeated, extra, rows, atKills, gap: receiver.stats().longestGapMs / 1000 };
  };

  const clean = await run(0);
  const drill = await run(kills);
  const { requests, badSignatures } = receiver.stats();
  console.log(`machine: ${machine()} (shared with other engineers' runs)`);
  console.log(`workload: ${ACCOUNTS} accounts x ${HOOKS_PER_ACCOUNT} webhooks, ${events} status events published on Kafka in rounds of 50 every 50 ms -> ${drill.expected} deliveries; the service process consumes and delivers (session timeout 6 s)`);
  console.log(`ceiling (never killed): ${clean.expected} deliveries in ${clean.sec.toFixed(2)} s from the first publish; longest gap between two received requests ${clean.gap.toFixed(2)} s; ${clean.extra} repeats`);
  console.log(`drill (${kills} SIGKILLs at random points): ${drill.expected} deliveries in ${drill.sec.toFixed(2)} s; time lost ${(drill.sec - clean.sec).toFixed(2)} s (${((drill.sec - clean.sec) / Math.max(1, kills)).toFixed(2)} s a kill); longest gap ${drill.gap.toFixed(2)} s`);
  console.log(`at each kill: ${drill.atKills.join('; ')}`);
  console.log(`lost: ${drill.lost} (published events not received by a webhook of their account); requests with an unknown webhook-id or URL: ${drill.foreign}; bad signatures: ${badSignatures}`);
  console.log(`duplicates: ${drill.repeated} deliveries received more than once (${drill.extra} extra requests of ${requests}), each repeat under the webhook-id of its first request; queue rows ${drill.rows} for ${drill.expected} deliveries (a redelivered event queued nothing twice)`);

  await app.close();
  await cluster.stop();
  await receiver.close();
  await database.stop();
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
