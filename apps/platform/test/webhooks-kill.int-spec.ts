import { randomUUID } from 'node:crypto';
import { ALL_PERMISSIONS, MessageStatusChangedV1 } from '@switchboard/contracts';
import { createEnvelope, TokenSigner } from '@switchboard/platform';
import { createTestDatabase, natsTestUrl, startServiceCluster, startWebhookReceiver, type ServiceCluster, type ServiceProcess, type TestDatabase, type WebhookReceiver } from '@switchboard/platform/testing';
import { buildServer, repoRoot } from './server-process';

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
  let cluster: ServiceCluster;
  let db: TestDatabase;
  let receiver: WebhookReceiver;
  let port = 0;

  const startService = async (): Promise<ServiceProcess> => {
    const p = await cluster.start(
      'webhooks',
      {
        WEBHOOKS_SECRET: 'a-secret-of-the-webhooks-kill-test',
        WEBHOOKS_ALLOWED_PORTS: 'any',
        WEBHOOKS_ALLOW_LOOPBACK: 'true',
        WEBHOOKS_TIMEOUT_MS: '1000',
      },
      { port: port || undefined },
    );
    port = p.port;
    return p;
  };

  beforeAll(async () => {
    buildServer();
    db = await createTestDatabase();
    cluster = await startServiceCluster({ root: repoRoot, databaseUrl: db.url, natsUrl: natsTestUrl(), clientId: 'webhooks-kill-test' });
    receiver = await startWebhookReceiver();
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    await db?.drop();
    await receiver?.close();
  }, 60_000);

  it('delivers every event published before, during and after the kill at least once, each repeat under the same webhook-id', async () => {
    let service = await startService();
    const accounts = ['15001', '15002'];
    const paths = new Map<string, string[]>();
    for (const acc of accounts) {
      const token = new TokenSigner(cluster.keys.privateKey).signAccess({ sub: '1', email: 'a@b.c', acc, perms: [...ALL_PERMISSIONS], roles: [], sa: false, sid: 's' }, 900);
      for (const h of ['a', 'b']) {
        const p = `/hook/${acc}/${h}`;
        const res = await fetch(`http://127.0.0.1:${port}/api/webhooks`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: h, url: `${receiver.base}${p}`, trigger: 'message_status_change' }),
        });
        expect(res.status).toBe(201);
        receiver.addSecret(p, ((await res.json()) as { secret: string }).secret);
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
      await cluster.producer.publish(events);
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
    const count = async (q: string) => Number((await cluster.pool.query<{ n: string }>(q)).rows[0].n);

    // before: a stream of events, the process consuming and delivering them
    for (let i = 0; i < 10; i++) await publish(20);
    await waitUntil('the first deliveries', () => receiver.received.size >= 20);
    for (let i = 0; i < 10; i++) await publish(20);
    // the kill, mid-run
    await service.stop('SIGKILL');
    const consumedAtKill = await count(`SELECT count(*) AS n FROM webhooks.processed_events`);
    // requests the receiver got whose outcome the killed process never wrote
    const inFlightAtKill = receiver.stats().requests - (await count(`SELECT count(*) AS n FROM webhooks.request_log`));
    // while it is dead: more events wait in Kafka
    for (let i = 0; i < 5; i++) await publish(20);
    service = await startService();
    // after the restart
    for (let i = 0; i < 5; i++) await publish(20);

    await waitUntil('every event at every webhook of its account', () => [...expected].every((k) => receiver.received.has(k)));
    await waitUntil('every delivery recorded', async () => (await count(`SELECT count(*) AS n FROM webhooks.delivery WHERE state <> 'succeeded'`)) === 0);

    const { received } = receiver;
    const lost = [...expected].filter((k) => !received.has(k));
    const foreign = [...received.keys()].filter((k) => !expected.has(k));
    const repeats = [...received.values()].reduce((s, n) => s + n - 1, 0);
    console.log(`webhooks kill: ${published.size} events, ${expected.size} deliveries; consumed at the kill ${consumedAtKill}, in flight ${inFlightAtKill}; ${repeats} repeats (same webhook-id)`);
    expect(published.size).toBe(600);
    // the kill came mid-run: events had been consumed before it; 200 more were published while it was dead or after
    expect(consumedAtKill).toBeGreaterThan(0);
    expect(lost).toEqual([]);
    expect(foreign).toEqual([]);
    expect(receiver.stats().badSignatures).toBe(0);
    // one queued delivery per event and webhook, however often the event was consumed (a redelivered chunk queues nothing twice)
    expect(await count(`SELECT count(*) AS n FROM webhooks.delivery`)).toBe(expected.size);
    expect(await count(`SELECT count(DISTINCT (webhook_id, event_id)) AS n FROM webhooks.request_log`)).toBe(expected.size);
  }, 300_000);
});
