import { KafkaEventBus } from '@switchboard/platform';
import { startStandaloneService, type StandaloneService } from '@switchboard/platform/testing';
import { Client } from 'pg';
import { CAMPAIGNS_MIGRATIONS, loadCampaignsConfig } from '../src';
import { startCampaignsService, type RunningCampaignsService } from '../src/bootstrap';
import { customer, stream } from './support';

/** Distributed mode: the campaigns process on Kafka (librdkafka's mock cluster) and NATS, migrated by migrate.js's code first. */
describe('standalone campaigns service', () => {
  let sa: StandaloneService<RunningCampaignsService>;
  let db: StandaloneService<RunningCampaignsService>['db'];
  let service: RunningCampaignsService;
  let producer: KafkaEventBus;
  let keys: StandaloneService<RunningCampaignsService>['keys'];

  beforeAll(async () => {
    sa = await startStandaloneService({
      schema: 'campaigns',
      migrations: CAMPAIGNS_MIGRATIONS,
      load: loadCampaignsConfig,
      start: (config) => startCampaignsService(config, { logger: ['error'] }),
      producer: true,
    });
    ({ db, service, producer, keys } = sa);
  }, 60_000);

  afterAll(async () => {
    await sa?.close();
  });

  it('reports ready and keeps its read models from the events it reads from Kafka', async () => {
    expect((await fetch(`${service.url}/api/health`)).status).toBe(200);
    await producer.publish([customer('901', { enable_spam_restriction: true }), stream('901', '9001', 'Kafka stream')]);
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      let rows: unknown[] = [];
      for (let i = 0; i < 400 && rows.length < 2; i++) {
        rows = (await pg.query(`SELECT 'account' AS k FROM campaigns.account WHERE account_id = 901 AND enable_spam_restriction UNION ALL SELECT 'stream' FROM campaigns.stream WHERE stream_id = 9001`)).rows;
        if (rows.length < 2) await new Promise((r) => setTimeout(r, 50));
      }
      expect(rows).toHaveLength(2);
    } finally {
      await pg.end();
    }
  }, 60_000);

  it('refuses a configuration without its database', () => {
    expect(() => loadCampaignsConfig({ JWT_PUBLIC_KEY: keys.publicKey, KAFKA_BROKERS: 'x:1' })).toThrow(/DATABASE_URL/);
  });
});
