import { ALL_PERMISSIONS, type DashboardMainDto } from '@switchboard/contracts';
import { KafkaEventBus, TokenSigner } from '@switchboard/platform';
import { startStandaloneService, type StandaloneService } from '@switchboard/platform/testing';
import { loadStatsConfig, STATS_MIGRATIONS } from '../src';
import { startStatsService, type RunningStatsService } from '../src/bootstrap';
import { accepted, customer, message, statusChanged } from './support';

/** Distributed mode: the stats process on Kafka (librdkafka's mock cluster) and NATS, migrated by the Job's code first. */
describe('standalone stats service', () => {
  let sa: StandaloneService<RunningStatsService>;
  let service: RunningStatsService;
  let producer: KafkaEventBus;
  let keys: StandaloneService<RunningStatsService>['keys'];

  beforeAll(async () => {
    sa = await startStandaloneService({
      schema: 'stats',
      migrations: STATS_MIGRATIONS,
      load: loadStatsConfig,
      start: (config) => startStatsService(config, { logger: ['error'] }),
      env: (base) => ({ ...base, STATS_CACHE_SECONDS: '0' }),
      producer: true,
    });
    ({ service, producer, keys } = sa);
  }, 60_000);

  afterAll(async () => {
    await sa?.close();
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
