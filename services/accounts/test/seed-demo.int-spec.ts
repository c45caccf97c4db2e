import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { generateSigningKeys, InMemoryEventBus, openServiceDataSource } from '@switchboard/platform';
import { createTestDatabase, kafkaTestBrokers, natsTestUrl, type TestDatabase } from '@switchboard/platform/testing';
import { ACCOUNTS_ENTITIES, ACCOUNTS_MIGRATIONS, loadAccountsConfig } from '../src';
import { startAccountsService } from '../src/bootstrap';

/** SEED_DEMO (docs/decisions/0030): the standalone accounts process creates embedded mode's demo account, once. */
describe('standalone accounts service with SEED_DEMO', () => {
  let db: TestDatabase;
  let pg: Client;
  const keys = generateSigningKeys();
  const env = (extra: Record<string, string>) =>
    loadAccountsConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      JWT_PUBLIC_KEY: Buffer.from(keys.publicKey).toString('base64'),
      KAFKA_BROKERS: kafkaTestBrokers().join(','),
      NATS_URL: natsTestUrl(),
      ...extra,
    });
  const demoRows = async () =>
    (await pg.query<{ name: string; active: number; tps: number; balance_micros: string }>(`SELECT name, active, tps, balance_micros FROM accounts.customer WHERE name = 'Demo account'`)).rows;

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    db = await createTestDatabase();
    const ds = await openServiceDataSource({ name: 'accounts-migrate', url: db.url, schema: 'accounts', entities: ACCOUNTS_ENTITIES, migrations: ACCOUNTS_MIGRATIONS });
    await ds.destroy();
    pg = new Client({ connectionString: db.url });
    await pg.connect();
  }, 60_000);

  afterAll(async () => {
    await pg?.end();
    await db?.drop();
    jest.restoreAllMocks();
  });

  it('seeds nothing without the flag', async () => {
    const service = await startAccountsService(env({}), { logger: ['error'] });
    await service.close();
    expect(await demoRows()).toEqual([]);
  }, 60_000);

  it('creates the demo account with its credit and TPS once, with two replicas starting together and a restart', async () => {
    // the two replicas on buses of their own (one Kafka group would rebalance for a minute); the restart on Kafka
    const replica = () => startAccountsService(env({ SEED_DEMO: 'true' }), { logger: ['error'], drivers: { bus: new InMemoryEventBus() } });
    const [a, b] = await Promise.all([replica(), replica()]);
    await Promise.all([a.close(), b.close()]);
    const again = await startAccountsService(env({ SEED_DEMO: 'true' }), { logger: ['error'] });
    await again.close();

    const rows = await demoRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ active: 1, tps: 10, balance_micros: '100000000' });
    const created = await pg.query(`SELECT 1 FROM accounts.outbox WHERE type = 'accounts.customer.created'`);
    expect(created.rowCount).toBe(1);
  }, 60_000);
});
