import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { MessageChargedV1 } from '@switchboard/contracts';
import { createEnvelope, KafkaEventBus, TokenSigner } from '@switchboard/platform';
import { startStandaloneService, type StandaloneService } from '@switchboard/platform/testing';
import { ACCOUNTS_ENTITIES, ACCOUNTS_MIGRATIONS, loadAccountsConfig } from '../src';
import { startAccountsService, type RunningAccountsService } from '../src/bootstrap';

/** Distributed mode: the accounts process on Kafka (librdkafka's mock cluster) and NATS, migrated by the Job's code first. */
describe('standalone accounts service', () => {
  let sa: StandaloneService<RunningAccountsService>;
  let service: RunningAccountsService;
  let producer: KafkaEventBus;
  let pg: Client;
  let signer: TokenSigner;
  const until = (what: () => Promise<boolean>) => sa.until(what);

  beforeAll(async () => {
    sa = await startStandaloneService({
      schema: 'accounts',
      entities: ACCOUNTS_ENTITIES,
      migrations: ACCOUNTS_MIGRATIONS,
      load: loadAccountsConfig,
      start: (config) => startAccountsService(config, { logger: ['error'] }),
      // the key as a k8s Secret carries it, base64
      env: (base, { keys }) => ({ ...base, JWT_PUBLIC_KEY: Buffer.from(keys.publicKey).toString('base64') }),
      producer: true,
    });
    ({ service, producer } = sa);
    signer = new TokenSigner(sa.keys.privateKey);
    pg = new Client({ connectionString: sa.db.url });
    await pg.connect();
  }, 60_000);

  afterAll(async () => {
    await pg?.end();
    await sa?.close();
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
