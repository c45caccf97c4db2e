import { randomUUID } from 'node:crypto';
import { ALL_PERMISSIONS, MessageStatusChangedV1 } from '@switchboard/contracts';
import { createEnvelope, KafkaEventBus, TokenSigner } from '@switchboard/platform';
import { startStandaloneService, type StandaloneService } from '@switchboard/platform/testing';
import { loadWebhooksConfig, WEBHOOKS_MIGRATIONS } from '../src';
import { startWebhooksService, type RunningWebhooksService } from '../src/bootstrap';
import { Receiver } from './support';

/** Distributed mode: the webhooks process on Kafka (librdkafka's mock cluster) and NATS, migrated by the Job's code first. */
describe('standalone webhooks service', () => {
  let sa: StandaloneService<RunningWebhooksService>;
  let db: StandaloneService<RunningWebhooksService>['db'];
  let service: RunningWebhooksService;
  let producer: KafkaEventBus;
  let rx: Receiver;
  let keys: StandaloneService<RunningWebhooksService>['keys'];

  beforeAll(async () => {
    rx = await new Receiver().start();
    sa = await startStandaloneService({
      schema: 'webhooks',
      migrations: WEBHOOKS_MIGRATIONS,
      load: loadWebhooksConfig,
      start: (config) => startWebhooksService(config, { logger: ['error'] }),
      env: (base) => ({ ...base, WEBHOOKS_SECRET: 'a-secret-of-at-least-16-chars', WEBHOOKS_ALLOWED_PORTS: 'any', WEBHOOKS_ALLOW_LOOPBACK: 'true' }),
      producer: true,
    });
    ({ db, service, producer, keys } = sa);
  }, 60_000);

  afterAll(async () => {
    await sa?.close();
    await rx?.stop();
  });

  it('reports ready, takes a webhook, and delivers a status change it reads from Kafka', async () => {
    expect((await fetch(`${service.url}/api/health`)).status).toBe(200);
    // an account of its own: other test files publish dispatch events of small account ids on the shared Kafka cluster
    const acc = String(700_000_000 + Math.floor(Math.random() * 100_000_000));
    const token = new TokenSigner(keys.privateKey).signAccess({ sub: '1', email: 'a@b.c', acc, perms: [...ALL_PERMISSIONS], roles: [], sa: false, sid: 's' }, 900);
    const res = await fetch(`${service.url}/api/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'k', url: `${rx.url}/k`, trigger: 'message_status_change' }),
    });
    expect(res.status).toBe(201);
    const e = createEnvelope(
      MessageStatusChangedV1,
      { messageUuid: randomUUID(), accountId: acc, streamId: '1', streamUid: 's', campaignId: null, sender: 'S', destination: '+14155552671', status: 'delivered', outgoingStatus: null, error: null, vendorId: null, providerMessageId: null, sentAt: null, deliveredAt: null, mcc: null, mnc: null, occurredAt: new Date().toISOString() },
      { accountId: acc, source: 'dispatch' },
    );
    await producer.publish([e]);
    // up to 60 s: with the machine at load average 19 the first delivery once took longer than the former 20 s
    for (let i = 0; i < 1200 && rx.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual([e.id]);
  }, 120_000);

  it('refuses a configuration without its secret', () => {
    expect(() => loadWebhooksConfig({ DATABASE_URL: db.url, JWT_PUBLIC_KEY: keys.publicKey, KAFKA_BROKERS: 'x:1' })).toThrow(/WEBHOOKS_SECRET/);
  });
});
