import { createHmac, randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { logLevel } from 'kafkajs';
import { Pool } from 'pg';
import { ALL_PERMISSIONS, MessageStatusChangedV1 } from '@switchboard/contracts';
import { createEnvelope, freePort, generateSigningKeys, KafkaEventBus, TokenSigner } from '@switchboard/platform';
import { createTestDatabase, startKafkaMock, startNodeProcess, type RunningBroker, type TestDatabase } from '@switchboard/platform/testing';
import { buildServer, repoRoot, type ServerProcess } from './server-process';

/**
 * Issue 15, "SIGKILL the webhooks service mid-run: no event undelivered after restart; duplicates only as retries with
 * the same event id". The standalone webhooks process (the built `main.js`, as deployed) consumes dispatch's status
 * events from Kafka (a mock cluster of this file's own) and delivers them to a local receiver, which checks every
 * signature and counts requests by URL and `webhook-id`. Events are published before, while and after the process is
 * SIGKILLed mid-run (consuming and delivering) and started again. Every event must reach every webhook of its account
 * at least once, every request must carry a valid signature and the id of an event that was published (so a receiver
 * deduplicating on `webhook-id` sees each event once). Repeats are counted, not bounded: at least once allows them.
 */
describe('webhooks service SIGKILLed while it consumes and delivers', () => {
  let kafka: RunningBroker;
  let db: TestDatabase;
  let pool: Pool;
  let producer: KafkaEventBus;
  let server: http.Server;
  let base = '';
  const procs: ServerProcess[] = [];
  const keys = generateSigningKeys();
  const secrets = new Map<string, Buffer>();
  const received = new Map<string, number>();
  let badSignatures = 0;
  let port = 0;

  const startService = async (): Promise<ServerProcess> => {
    const p = await startNodeProcess(path.join(repoRoot, 'dist/services/webhooks/src/main.js'), { url: `http://127.0.0.1:${port}/api/health` }, {
      cwd: repoRoot,
      env: {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: db.url,
        JWT_PUBLIC_KEY: Buffer.from(keys.publicKey).toString('base64'),
        KAFKA_BROKERS: kafka.url,
        NATS_URL: process.env.SWITCHBOARD_TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
        MIGRATIONS_RUN: 'true',
        WEBHOOKS_SECRET: 'a-secret-of-the-webhooks-kill-test',
        WEBHOOKS_ALLOWED_PORTS: 'any',
        WEBHOOKS_ALLOW_LOOPBACK: 'true',
        WEBHOOKS_TIMEOUT_MS: '1000',
        // a killed process's claimed deliveries come back after 3 s (the default is 63 s at this timeout)
        WEBHOOKS_LEASE_MS: '3000',
      },
    });
    procs.push(p);
    return p;
  };

  beforeAll(async () => {
    buildServer();
    kafka = await startKafkaMock(1);
    db = await createTestDatabase();
    pool = new Pool({ connectionString: db.url, max: 2 });
    producer = new KafkaEventBus({ clientId: 'webhooks-kill-test', brokers: kafka.url.split(','), logLevel: logLevel.NOTHING });
    port = await freePort();
    server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
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
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 180_000);

  afterAll(async () => {
    for (const p of procs) await p.stop('SIGKILL');
    await producer?.stop();
    await pool?.end();
    await db?.drop();
    await kafka?.stop();
    server?.closeAllConnections();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  }, 60_000);

  it('delivers every event published before, during and after the kill at least once, each repeat under the same webhook-id', async () => {
    let service = await startService();
    const accounts = ['15001', '15002'];
    const paths = new Map<string, string[]>();
    for (const acc of accounts) {
      const token = new TokenSigner(keys.privateKey).signAccess({ sub: '1', email: 'a@b.c', acc, perms: [...ALL_PERMISSIONS], roles: [], sa: false, sid: 's' }, 900);
      for (const h of ['a', 'b']) {
        const p = `/hook/${acc}/${h}`;
        const res = await fetch(`http://127.0.0.1:${port}/api/webhooks`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: h, url: `${base}${p}`, trigger: 'message_status_change' }),
        });
        expect(res.status).toBe(201);
        secrets.set(p, Buffer.from(String(((await res.json()) as { secret: string }).secret).slice(6), 'base64'));
        paths.set(acc, [...(paths.get(acc) ?? []), p]);
      }
    }
    const expected = new Set<string>();
    const published = new Set<string>();
    const publish = async (n: number) => {
      const events = Array.from({ length: n }, (_, i) => {
        const acc = accounts[i % accounts.length];
        const now = new Date().toISOString();
        return createEnvelope(
          MessageStatusChangedV1,
          { messageUuid: randomUUID(), accountId: acc, streamId: '1', streamUid: 's', campaignId: null, sender: 'KILL', destination: '+14155552671', status: 'delivered', outgoingStatus: null, error: null, vendorId: null, providerMessageId: null, sentAt: now, deliveredAt: now, mcc: null, mnc: null, occurredAt: now },
          { accountId: acc, source: 'dispatch' },
        );
      });
      await producer.publish(events);
      for (const e of events) {
        published.add(e.id);
        for (const p of paths.get(String(e.accountId)) ?? []) expected.add(`${p} ${e.id}`);
      }
    };
    const waitUntil = async (what: string, ok: () => Promise<boolean> | boolean) => {
      // a bound so a broken run fails instead of hanging, not a speed figure
      for (let i = 0; i < 3600; i++) {
        if (await ok()) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`not reached: ${what}`);
    };
    const count = async (q: string) => Number((await pool.query<{ n: string }>(q)).rows[0].n);

    // before: a stream of events, the process consuming and delivering them
    for (let i = 0; i < 10; i++) await publish(20);
    await waitUntil('the first deliveries', () => received.size >= 20);
    for (let i = 0; i < 10; i++) await publish(20);
    // the kill, mid-run
    await service.stop('SIGKILL');
    const consumedAtKill = await count(`SELECT count(*) AS n FROM webhooks.processed_events`);
    const inFlightAtKill = await count(`SELECT count(*) AS n FROM webhooks.delivery WHERE state = 'delivering'`);
    // while it is dead: more events wait in Kafka
    for (let i = 0; i < 5; i++) await publish(20);
    service = await startService();
    // after the restart
    for (let i = 0; i < 5; i++) await publish(20);

    await waitUntil('every event at every webhook of its account', () => [...expected].every((k) => received.has(k)));
    await waitUntil('every delivery recorded', async () => (await count(`SELECT count(*) AS n FROM webhooks.delivery WHERE state <> 'succeeded'`)) === 0);

    const lost = [...expected].filter((k) => !received.has(k));
    const foreign = [...received.keys()].filter((k) => !expected.has(k));
    const repeats = [...received.values()].reduce((s, n) => s + n - 1, 0);
    console.log(`webhooks kill: ${published.size} events, ${expected.size} deliveries; consumed at the kill ${consumedAtKill}, in flight ${inFlightAtKill}; ${repeats} repeats (same webhook-id)`);
    expect(published.size).toBe(600);
    // the kill came mid-run: events had been consumed before it; 200 more were published while it was dead or after
    expect(consumedAtKill).toBeGreaterThan(0);
    expect(lost).toEqual([]);
    expect(foreign).toEqual([]);
    expect(badSignatures).toBe(0);
    // one queued delivery per event and webhook, however often the event was consumed (a redelivered chunk queues nothing twice)
    expect(await count(`SELECT count(*) AS n FROM webhooks.delivery`)).toBe(expected.size);
    expect(await count(`SELECT count(DISTINCT (webhook_id, event_id)) AS n FROM webhooks.request_log`)).toBe(expected.size);
  }, 300_000);
});
