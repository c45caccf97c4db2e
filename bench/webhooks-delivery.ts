/**
 * Webhook deliveries to a local receiver, through the webhooks module (real PostgreSQL): each delivery claimed from
 * the queue (FOR UPDATE SKIP LOCKED), signed (Standard Webhooks HMAC-SHA256), POSTed over keep-alive HTTP through the
 * SSRF guard, and recorded in the request log with the delivery's next state in one transaction.
 * Fixed workload: 10 accounts x 10 webhooks (message status change), BENCH_EVENTS status events (default 2,000) spread
 * over the accounts: each event queues 10 deliveries (20,000 by default).
 *
 *   node scripts/build.mjs --server-only && node dist/bench/webhooks-delivery.js
 *
 * Figures: queueing (the consumer: events/s, deliveries queued/s), delivery (deliveries/s, CPU seconds of this process
 * per 1,000 deliveries, request-log rows written), and a ceiling from the same run: bare node:http posting the same
 * signed payloads to the same receiver at the same concurrency, no database. Then fairness: one account's receiver
 * hangs until the timeout (2 s) while another account's 2,000 deliveries go to the healthy receiver: its rate with the
 * hanging one beside it and without. The receiver runs in this process; PostgreSQL apart (DATABASE_URL, or an embedded
 * one started in a temporary directory).
 */
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID, createHmac } from 'node:crypto';
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

function receiver(behaviour: 'ok' | 'hang'): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
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
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        count: () => n,
        close: async () => {
          for (const r of hanging) r.destroy();
          server.closeAllConnections();
          await new Promise<void>((r) => server.close(() => r()));
        },
      }),
    ),
  );
}

/** CPU seconds of the embedded PostgreSQL (postmaster and its children), from /proc; null with an outside DATABASE_URL. */
function pgCpu(dataDir: string | null): number | null {
  if (!dataDir) return null;
  try {
    const pm = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const tick = 100;
    let total = 0;
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(pid) === pm || Number(f[1]) === pm) total += (Number(f[11]) + Number(f[12])) / tick;
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

async function main(): Promise<void> {
  let pg: Awaited<ReturnType<typeof startEmbeddedPostgres>> | null = null;
  let url = process.env.DATABASE_URL;
  const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bench-webhooks-'));
  if (!url) {
    pg = await startEmbeddedPostgres({ dataDir: pgDir, persistent: false });
    url = pg.url();
  }
  const keys = generateSigningKeys();
  const bus = new InMemoryEventBus();
  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime: new InMemoryRealtime(), mailer: new DevMailbox(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: url, processName: 'bench' }),
      WebhooksModule.register({ secret: 'bench-secret-of-the-webhooks', allowLoopback: true, allowedPorts: 'any', pollMs: 0, concurrency: CONCURRENCY, perHostConcurrency: CONCURRENCY, timeoutMs: 2000 }),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.create<NestExpressApplication>(BenchModule, { logger: ['error'] });
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

  // phase 1: the consumer queues the deliveries
  const events = Array.from({ length: EVENTS }, (_, i) => createEnvelope(MessageStatusChangedV1, statusEvent(String((i % ACCOUNTS) + 1)), { accountId: String((i % ACCOUNTS) + 1), source: 'dispatch' }));
  let t0 = performance.now();
  for (let i = 0; i < events.length; i += 500) await bus.publish(events.slice(i, i + 500));
  await bus.drain();
  const queueSec = (performance.now() - t0) / 1000;
  const [{ n: queued }] = (await sql.query(`SELECT count(*)::int AS n FROM webhooks.delivery`)).rows;

  // phase 2: deliveries
  const pgData = pg ? pgDir : null;
  let c0 = cpu();
  const pg0 = pgCpu(pgData);
  t0 = performance.now();
  await deliveries.runOnce();
  const deliverSec = (performance.now() - t0) / 1000;
  const deliverCpu = cpu() - c0;
  const pg1 = pgCpu(pgData);
  const deliverPgCpu = pg0 !== null && pg1 !== null ? pg1 - pg0 : null;
  const [{ n: logged }] = (await sql.query(`SELECT count(*)::int AS n FROM webhooks.request_log WHERE status = 'success'`)).rows;
  const payloads = (await sql.query<{ payload: string; event_id: string }>(`SELECT payload, event_id::text FROM webhooks.delivery LIMIT $1`, [queued])).rows;

  // ceiling: bare node:http, same signed payloads, same concurrency, no database
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const key = Buffer.from(secret.slice(6), 'base64');
  const target = new URL(`${ok.url}/hook/ceiling`);
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
  agent.destroy();

  // fairness: account 100's receiver hangs; account 101's 2,000 deliveries to the healthy one, with and without it
  const hang = await receiver('hang');
  await asAccount('100', () => webhooks.create({ name: 'hang', url: `${hang.url}/hang`, trigger: 'message_status_change' }));
  const healthyRate = async (withHanging: boolean): Promise<number> => {
    const evs = [];
    if (withHanging) for (let i = 0; i < 200; i++) evs.push(createEnvelope(MessageStatusChangedV1, statusEvent('100'), { accountId: '100', source: 'dispatch' }));
    for (let i = 0; i < 200; i++) evs.push(createEnvelope(MessageStatusChangedV1, statusEvent('1'), { accountId: '1', source: 'dispatch' }));
    await bus.publish(evs);
    await bus.drain();
    const before = ok.count();
    const s = performance.now();
    // drive the worker until the healthy account's 2,000 are out (the hanging ones stay in flight or wait for retry)
    for (;;) {
      await deliveries.tick();
      if (ok.count() - before >= 200 * HOOKS_PER_ACCOUNT) break;
      await new Promise((r) => setTimeout(r, 1));
    }
    return (200 * HOOKS_PER_ACCOUNT) / ((performance.now() - s) / 1000);
  };
  const alone = await healthyRate(false);
  const beside = await healthyRate(true);

  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  console.log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, load average ${load} (shared with other engineers' runs)`);
  console.log(`workload: ${ACCOUNTS} accounts x ${HOOKS_PER_ACCOUNT} webhooks, ${EVENTS} status events -> ${queued} deliveries`);
  console.log(`queueing (consumer): ${(EVENTS / queueSec).toFixed(0)} events/s, ${(queued / queueSec).toFixed(0)} deliveries queued/s`);
  console.log(`delivery: ${(queued / deliverSec).toFixed(0)} deliveries/s (${deliverSec.toFixed(2)} s), ${((deliverCpu / queued) * 1000).toFixed(3)} CPU s per 1,000 (this process), ${logged} request-log rows`);
  if (deliverPgCpu !== null) {
    const both = (deliverCpu + deliverPgCpu) / queued;
    console.log(`delivery CPU incl. PostgreSQL: ${((deliverPgCpu / queued) * 1000).toFixed(3)} CPU s per 1,000 in PostgreSQL, ${(both * 1000).toFixed(3)} in all: ${(os.cpus().length / both).toFixed(0)} deliveries/s if the ${os.cpus().length} cores were ours`);
  }
  console.log(`ceiling (bare node:http, same signed payloads, concurrency ${CONCURRENCY}, no database): ${(payloads.length / ceilSec).toFixed(0)} requests/s, ${((ceilCpu / payloads.length) * 1000).toFixed(3)} CPU s per 1,000`);
  console.log(`ratio: ${((queued / deliverSec) / (payloads.length / ceilSec) * 100).toFixed(1)} % of the ceiling's rate, ${(deliverCpu / queued / (ceilCpu / payloads.length)).toFixed(1)}x its CPU per delivery`);
  console.log(`fairness: healthy account ${alone.toFixed(0)} deliveries/s alone, ${beside.toFixed(0)} deliveries/s beside an account whose receiver hangs (${hang.count()} requests held by it)`);

  await hang.close();
  await ok.close();
  await sql.end();
  await app.close();
  if (pg) await pg.stop();
  fs.rmSync(pgDir, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
