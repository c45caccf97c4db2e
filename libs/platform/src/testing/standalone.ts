import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { generateSigningKeys, TokenSigner, type AccessClaims, type KeyPair } from '../auth/tokens';
import { KafkaEventBus } from '../bus/kafka-event-bus';
import { openServiceDataSource, type ServiceDatabaseOptions } from '../database/data-source';
import { createTestDatabase, kafkaTestBrokers, natsTestUrl, type TestDatabase } from './database';

/** What a service's `start<Name>Service` answers: its URL and a way to stop it. */
export interface StartedService {
  url: string;
  close: () => Promise<void>;
}

export interface StandaloneOptions<C, S extends StartedService> {
  /** The service's schema and migrations, run first as its migration Job (migrate.js) does. */
  schema: string;
  migrations: ServiceDatabaseOptions['migrations'];
  entities?: ServiceDatabaseOptions['entities'];
  /** The service's config loader (`load<Name>Config`), given the process environment. */
  load: (env: Record<string, string>) => C;
  start: (config: C) => Promise<S>;
  /**
   * The environment: `base` has PORT 0, HOST 127.0.0.1, DATABASE_URL, JWT_PUBLIC_KEY, KAFKA_BROKERS (the run's mock
   * cluster) and NATS_URL; answer it with the service's own variables added (or some taken away).
   */
  env?: (base: Record<string, string>, ctx: { db: TestDatabase; keys: KeyPair }) => Record<string, string>;
  /** A Kafka producer for the test to publish other services' events with. */
  producer?: boolean;
}

export interface StandaloneService<S extends StartedService> {
  db: TestDatabase;
  keys: KeyPair;
  service: S;
  /** The environment the service was started with. */
  env: Record<string, string>;
  /** Set when `producer` was asked for. */
  producer: KafkaEventBus;
  /** An access token as the auth service would sign it. */
  token: (claims: Partial<Omit<AccessClaims, 'typ'>> & { sub: string }) => string;
  sql: <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;
  /** Polls `probe` every 50 ms until it answers true (20 s at most). */
  until: (probe: () => Promise<boolean>, timeoutMs?: number) => Promise<void>;
  close: () => Promise<void>;
}

/**
 * One service as the distributed mode runs it: migrated by its Job's code, then started from its own config on the
 * run's Kafka mock cluster and NATS, against a fresh database. For each service's `standalone.int-spec.ts`.
 */
export async function startStandaloneService<C, S extends StartedService>(o: StandaloneOptions<C, S>): Promise<StandaloneService<S>> {
  const logSpy = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  const db = await createTestDatabase();
  const keys = generateSigningKeys();
  const opened: Array<{ close: () => Promise<unknown> }> = [{ close: () => db.drop() }];
  const close = async () => {
    for (const c of opened.splice(0).reverse()) await c.close();
    logSpy.mockRestore();
  };
  try {
    const ds = await openServiceDataSource({ name: `${o.schema}-migrate`, url: db.url, schema: o.schema, entities: o.entities ?? [], migrations: o.migrations });
    await ds.destroy();
    const base = { PORT: '0', HOST: '127.0.0.1', DATABASE_URL: db.url, JWT_PUBLIC_KEY: keys.publicKey, KAFKA_BROKERS: kafkaTestBrokers().join(','), NATS_URL: natsTestUrl() };
    const env = o.env ? o.env(base, { db, keys }) : base;
    const service = await o.start(o.load(env));
    opened.push(service);
    let producer = undefined as unknown as KafkaEventBus;
    if (o.producer) {
      producer = new KafkaEventBus({ clientId: `${o.schema}-test-producer`, brokers: kafkaTestBrokers() });
      await producer.start();
      opened.push({ close: () => producer.stop() });
    }
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    opened.push({ close: () => pg.end() });
    const signer = new TokenSigner(keys.privateKey);
    return {
      db,
      keys,
      service,
      env,
      producer,
      token: (c) => signer.signAccess({ email: `${c.sub}@test.local`, acc: null, perms: [], roles: [], sa: false, sid: 'test', ...c }, 900),
      sql: async (text, params = []) => (await pg.query(text, params)).rows,
      until: async (probe, timeoutMs = 20_000) => {
        const end = Date.now() + timeoutMs;
        while (!(await probe())) {
          if (Date.now() > end) throw new Error('condition not reached in time');
          await new Promise((r) => setTimeout(r, 50));
        }
      },
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
