import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { MessageChargedV1 } from '@switchboard/contracts';
import { createEnvelope, generateSigningKeys, KafkaEventBus, openServiceDataSource, TokenSigner } from '@switchboard/platform';
import { createTestDatabase, kafkaTestBrokers, natsTestUrl, type TestDatabase } from '@switchboard/platform/testing';
import { ACCOUNTS_ENTITIES, ACCOUNTS_MIGRATIONS, loadAccountsConfig } from '../src';
import { startAccountsService, type RunningAccountsService } from '../src/bootstrap';

/** Distributed mode: the accounts process on Kafka (librdkafka's mock cluster) and NATS, migrated by the Job's code first. */
describe('standalone accounts service', () => {
  let db: TestDatabase;
  let service: RunningAccountsService;
  let producer: KafkaEventBus;
  let pg: Client;
  const keys = generateSigningKeys();
  const signer = new TokenSigner(keys.privateKey);

  const until = async (what: () => Promise<boolean>) => {
    for (let i = 0; i < 300; i++) {
      if (await what()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('timed out');
  };

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    db = await createTestDatabase();
    // what migrate.js does
    const ds = await openServiceDataSource({ name: 'accounts-migrate', url: db.url, schema: 'accounts', entities: ACCOUNTS_ENTITIES, migrations: ACCOUNTS_MIGRATIONS });
    await ds.destroy();
    const config = loadAccountsConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      JWT_PUBLIC_KEY: Buffer.from(keys.publicKey).toString('base64'),
      KAFKA_BROKERS: kafkaTestBrokers().join(','),
      NATS_URL: natsTestUrl(),
    });
    service = await startAccountsService(config, { logger: ['error'] });
    producer = new KafkaEventBus({ clientId: 'accounts-test-producer', brokers: kafkaTestBrokers() });
    await producer.start();
    pg = new Client({ connectionString: db.url });
    await pg.connect();
  }, 60_000);

  afterAll(async () => {
    await pg?.end();
    await producer?.stop();
    await service?.close();
    await db?.drop();
    jest.restoreAllMocks();
  });

  it('reports ready, creates an account publishing its event to Kafka, and follows charges from Kafka', async () => {
    expect((await fetch(`${service.url}/api/health`)).status).toBe(200);
    const token = signer.signAccess({ sub: '1', email: 'root@example.com', acc: null, perms: [], roles: ['ROLE_SUPER_ADMIN'], sa: true, sid: 's' }, 300);
    const res = await fetch(`${service.url}/api/customers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'Distributed Co' }),
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: number };

    await until(async () => (await pg.query(`SELECT 1 FROM accounts.outbox WHERE type = 'accounts.customer.created' AND published_at IS NOT NULL`)).rowCount === 1);

    const charged = createEnvelope(MessageChargedV1, { messageUuid: randomUUID(), accountId: String(id), amountMicros: 250_000, currency: 'EUR', balanceAfterMicros: -250_000 }, { accountId: String(id), source: 'streams' });
    await producer.publish([charged]);
    await until(async () => (await pg.query<{ balance_micros: string }>('SELECT balance_micros FROM accounts.customer WHERE id = $1', [id])).rows[0].balance_micros === '-250000');
  });
});
