import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { generateSigningKeys } from '@switchboard/platform';
import { createTestDatabase, kafkaTestBrokers, natsTestUrl, type TestDatabase } from '@switchboard/platform/testing';
import { startDispatchService } from '../src/bootstrap';
import { loadDispatchConfig } from '../src/dispatch.config';

/** SEED_DEMO (docs/decisions/0030): the standalone dispatch process creates embedded mode's simulator vendors, once. */
describe('standalone dispatch service with SEED_DEMO', () => {
  let db: TestDatabase;
  let pg: Client;
  const keys = generateSigningKeys();
  const env = (extra: Record<string, string>) =>
    loadDispatchConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      JWT_PUBLIC_KEY: Buffer.from(keys.publicKey).toString('base64'),
      KAFKA_BROKERS: kafkaTestBrokers().join(','),
      NATS_URL: natsTestUrl(),
      MIGRATIONS_RUN: 'true',
      PROVIDER_SECRETS_KEY: 'a-provider-secrets-key-for-tests',
      // the seed runs in every role; without consumer groups two replicas start without a rebalance
      PROCESS_ROLES: 'http',
      ...extra,
    });

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    db = await createTestDatabase();
    pg = new Client({ connectionString: db.url });
    await pg.connect();
  }, 60_000);

  afterAll(async () => {
    await pg?.end();
    await db?.drop();
    jest.restoreAllMocks();
  });

  it('seeds no vendor without the flag', async () => {
    const service = await startDispatchService(env({}), { logger: ['error'] });
    await service.close();
    expect((await pg.query('SELECT 1 FROM dispatch.vendor')).rowCount).toBe(0);
  }, 60_000);

  it('creates the simulator vendors, each with one active channel, once with two replicas starting together and a restart', async () => {
    const [a, b] = await Promise.all([startDispatchService(env({ SEED_DEMO: 'true' }), { logger: ['error'] }), startDispatchService(env({ SEED_DEMO: 'true' }), { logger: ['error'] })]);
    await Promise.all([a.close(), b.close()]);
    const again = await startDispatchService(env({ SEED_DEMO: 'true' }), { logger: ['error'] });
    await again.close();

    const vendors = await pg.query<{ name: string; service_type: string; adapter: string; channels: string }>(
      `SELECT v.name, v.service_type, v.adapter, (SELECT count(*) FROM dispatch.channel c WHERE c.vendor_id = v.id AND c.active)::text AS channels
         FROM dispatch.vendor v ORDER BY v.id`,
    );
    expect(vendors.rows).toEqual([
      { name: 'SMS simulator', service_type: 'sms', adapter: 'simulator', channels: '1' },
      { name: 'WhatsApp simulator', service_type: 'whatsapp', adapter: 'simulator', channels: '1' },
      { name: 'Telegram simulator', service_type: 'telegram', adapter: 'simulator', channels: '1' },
      { name: 'Telegram private simulator', service_type: 'telegram_private', adapter: 'simulator', channels: '1' },
    ]);
    expect((await pg.query('SELECT 1 FROM dispatch.channel')).rowCount).toBe(4);
  }, 90_000);
});
