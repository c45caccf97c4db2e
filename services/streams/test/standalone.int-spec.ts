import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { ALL_PERMISSIONS } from '@switchboard/contracts';
import { generateSigningKeys, openServiceDataSource, TokenSigner } from '@switchboard/platform';
import { createTestDatabase, kafkaTestBrokers, natsTestUrl, type TestDatabase } from '@switchboard/platform/testing';
import { loadStreamsConfig, STREAMS_ENTITIES, STREAMS_MIGRATIONS } from '../src';
import { startStreamsService, type RunningStreamsService } from '../src/bootstrap';

/** Distributed mode: the streams process on Kafka (librdkafka's mock cluster) and NATS, migrated by the Job's code first. */
describe('standalone streams service', () => {
  let db: TestDatabase;
  let service: RunningStreamsService;
  const keys = generateSigningKeys();

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    db = await createTestDatabase();
    // what migrate.js does
    const ds = await openServiceDataSource({ name: 'streams-migrate', url: db.url, schema: 'streams', entities: STREAMS_ENTITIES, migrations: STREAMS_MIGRATIONS });
    await ds.destroy();
    const config = loadStreamsConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      JWT_PUBLIC_KEY: keys.publicKey,
      KAFKA_BROKERS: kafkaTestBrokers().join(','),
      NATS_URL: natsTestUrl(),
      STREAMS_SECRET: 'a-secret-of-at-least-16-chars',
      PROVIDER_SECRETS_KEY: 'a-provider-secrets-key-for-the-test',
    });
    service = await startStreamsService(config, { logger: ['error'] });
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await db?.drop();
    jest.restoreAllMocks();
  });

  it('reports ready, serves the console and publishes its events from the outbox to Kafka', async () => {
    expect((await fetch(`${service.url}/api/health`)).status).toBe(200);
    const token = new TokenSigner(keys.privateKey).signAccess({ sub: '1', email: 'a@b.c', acc: '9', perms: [...ALL_PERMISSIONS], roles: [], sa: false, sid: 's' }, 900);
    const res = await fetch(`${service.url}/api/senders`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Brand', value: 'Brand' }) });
    expect(res.status).toBe(201);
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      let published = false;
      for (let i = 0; i < 200 && !published; i++) {
        const r = await c.query<{ published: boolean }>(`SELECT published_at IS NOT NULL AS published FROM streams.outbox WHERE type = 'streams.sender.changed'`);
        published = r.rows[0]?.published === true;
        if (!published) await new Promise((r2) => setTimeout(r2, 50));
      }
      expect(published).toBe(true);
    } finally {
      await c.end();
    }
  });

  it('refuses a configuration without its secret', () => {
    expect(() => loadStreamsConfig({ DATABASE_URL: db.url, JWT_PUBLIC_KEY: keys.publicKey, KAFKA_BROKERS: 'x:1' })).toThrow(/STREAMS_SECRET/);
  });
});
