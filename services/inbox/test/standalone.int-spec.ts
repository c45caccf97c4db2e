import { MemberChangedV1 } from '@switchboard/contracts';
import { createEnvelope, KafkaEventBus } from '@switchboard/platform';
import { startStandaloneService, type StandaloneService } from '@switchboard/platform/testing';
import { Client } from 'pg';
import { INBOX_MIGRATIONS, loadInboxConfig } from '../src';
import { startInboxService, type RunningInboxService } from '../src/bootstrap';

/** Distributed mode: the inbox process on Kafka (librdkafka's mock cluster) and NATS, migrated by migrate.js's code first. */
describe('standalone inbox service', () => {
  let sa: StandaloneService<RunningInboxService>;
  let db: StandaloneService<RunningInboxService>['db'];
  let service: RunningInboxService;
  let producer: KafkaEventBus;
  let keys: StandaloneService<RunningInboxService>['keys'];

  beforeAll(async () => {
    sa = await startStandaloneService({
      schema: 'inbox',
      migrations: INBOX_MIGRATIONS,
      load: loadInboxConfig,
      start: (config) => startInboxService(config, { logger: ['error'] }),
      producer: true,
    });
    ({ db, service, producer, keys } = sa);
  }, 60_000);

  afterAll(async () => {
    await sa?.close();
  });

  it('reports ready and keeps its agents from the auth events it reads from Kafka', async () => {
    expect((await fetch(`${service.url}/api/health`)).status).toBe(200);
    await producer.publish([
      createEnvelope(
        MemberChangedV1,
        { accountId: '9', userId: '3', email: 'a@example.com', firstName: 'A', lastName: 'B', status: 1, platformRole: null, inboxRole: { id: '4', name: 'Inbox Agent' }, permissions: ['INBOX_VIEW'], removed: false },
        { source: 'auth', accountId: '9' },
      ),
    ]);
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      let rows: unknown[] = [];
      for (let i = 0; i < 400 && !rows.length; i++) {
        rows = (await pg.query(`SELECT email FROM inbox.agent WHERE account_id = 9 AND user_id = 3`)).rows;
        if (!rows.length) await new Promise((r) => setTimeout(r, 50));
      }
      expect(rows).toEqual([{ email: 'a@example.com' }]);
    } finally {
      await pg.end();
    }
  }, 60_000);

  it('refuses a configuration without its database', () => {
    expect(() => loadInboxConfig({ JWT_PUBLIC_KEY: keys.publicKey, KAFKA_BROKERS: 'x:1' })).toThrow(/DATABASE_URL/);
  });
});
