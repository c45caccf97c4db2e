import { Client } from 'pg';
import { ALL_PERMISSIONS } from '@switchboard/contracts';
import { TokenSigner } from '@switchboard/platform';
import { startStandaloneService, type StandaloneService } from '@switchboard/platform/testing';
import { loadStreamsConfig, STREAMS_ENTITIES, STREAMS_MIGRATIONS } from '../src';
import { startStreamsService, type RunningStreamsService } from '../src/bootstrap';

/** Distributed mode: the streams process on Kafka (librdkafka's mock cluster) and NATS, migrated by the Job's code first. */
describe('standalone streams service', () => {
  let sa: StandaloneService<RunningStreamsService>;
  let db: StandaloneService<RunningStreamsService>['db'];
  let service: RunningStreamsService;
  let keys: StandaloneService<RunningStreamsService>['keys'];

  beforeAll(async () => {
    sa = await startStandaloneService({
      schema: 'streams',
      entities: STREAMS_ENTITIES,
      migrations: STREAMS_MIGRATIONS,
      load: loadStreamsConfig,
      start: (config) => startStreamsService(config, { logger: ['error'] }),
      env: (base) => ({ ...base, STREAMS_SECRET: 'a-secret-of-at-least-16-chars', PROVIDER_SECRETS_KEY: 'a-provider-secrets-key-for-the-test' }),
    });
    ({ db, service, keys } = sa);
  }, 60_000);

  afterAll(async () => {
    await sa?.close();
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
