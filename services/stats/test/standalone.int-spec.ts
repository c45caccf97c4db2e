import { Logger } from '@nestjs/common';
import { ALL_PERMISSIONS, type DashboardMainDto } from '@switchboard/contracts';
import { generateSigningKeys, KafkaEventBus, openServiceDataSource, TokenSigner } from '@switchboard/platform';
import { createTestDatabase, kafkaTestBrokers, natsTestUrl, type TestDatabase } from '@switchboard/platform/testing';
import { loadStatsConfig, STATS_MIGRATIONS } from '../src';
import { startStatsService, type RunningStatsService } from '../src/bootstrap';
import { accepted, customer, message, statusChanged } from './support';

/** Distributed mode: the stats process on Kafka (librdkafka's mock cluster) and NATS, migrated by the Job's code first. */
describe('standalone stats service', () => {
  let db: TestDatabase;
  let service: RunningStatsService;
  let producer: KafkaEventBus;
  const keys = generateSigningKeys();

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    db = await createTestDatabase();
    // what migrate.js does
    const ds = await openServiceDataSource({ name: 'stats-migrate', url: db.url, schema: 'stats', entities: [], migrations: STATS_MIGRATIONS });
    await ds.destroy();
    const config = loadStatsConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      JWT_PUBLIC_KEY: keys.publicKey,
      KAFKA_BROKERS: kafkaTestBrokers().join(','),
      NATS_URL: natsTestUrl(),
      STATS_CACHE_SECONDS: '0',
    });
    service = await startStatsService(config, { logger: ['error'] });
    producer = new KafkaEventBus({ clientId: 'stats-test-producer', brokers: kafkaTestBrokers() });
    await producer.start();
  }, 60_000);

  afterAll(async () => {
    await producer?.stop();
    await service?.close();
    await db?.drop();
    jest.restoreAllMocks();
  });

  it('reports ready and answers the dashboard from message events it reads from Kafka', async () => {
    expect((await fetch(`${service.url}/api/health`)).status).toBe(200);
    const token = new TokenSigner(keys.privateKey).signAccess({ sub: '1', email: 'a@b.c', acc: '9', perms: [...ALL_PERMISSIONS], roles: [], sa: false, sid: 's' }, 900);
    const msgs = [message({ account: '9', acceptedAt: '2026-01-05T10:00:00Z' }), message({ account: '9', acceptedAt: '2026-01-05T11:00:00Z', priceMicros: 125 })];
    await producer.publish([customer('9', 'Asia/Kolkata'), ...msgs.map((m) => accepted(m)), statusChanged(msgs[0], 'delivered')]);
    let body: DashboardMainDto | null = null;
    for (let i = 0; i < 400; i++) {
      const res = await fetch(`${service.url}/api/dashboard_statistics/main`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ type: 'all' }) });
      expect(res.status).toBe(200);
      body = (await res.json()) as DashboardMainDto;
      if (body.totals.total === 2 && body.totals.delivered === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(body?.totals).toMatchObject({ total: 2, delivered: 1, accepted: 1 });
    expect(body?.cost).toEqual([{ currency: 'EUR', micros: '50125', amount: '0.050125' }]);
  }, 60_000);

  it('refuses a configuration without its database', () => {
    expect(() => loadStatsConfig({ JWT_PUBLIC_KEY: keys.publicKey, KAFKA_BROKERS: 'x:1' })).toThrow(/DATABASE_URL/);
  });
});
