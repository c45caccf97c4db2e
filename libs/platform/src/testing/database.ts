import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export interface TestDatabase {
  url: string;
  name: string;
  drop: () => Promise<void>;
}

function serverUrl(): string {
  const url = process.env.SWITCHBOARD_TEST_PG_URL;
  if (!url) throw new Error('SWITCHBOARD_TEST_PG_URL is not set: run tests through jest (its global setup starts PostgreSQL)');
  return url;
}

/** A fresh database on the run's PostgreSQL, for one test file. */
export async function createTestDatabase(prefix = 't'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = serverUrl().replace(/\/[^/]*$/, `/${name}`);
  return {
    url,
    name,
    drop: async () => {
      const c = new Client({ connectionString: serverUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

export const natsTestUrl = (): string => {
  const url = process.env.SWITCHBOARD_TEST_NATS_URL;
  if (!url) throw new Error('SWITCHBOARD_TEST_NATS_URL is not set: nats-server was not started by the global setup');
  return url;
};

export const kafkaTestBrokers = (): string[] => {
  const url = process.env.SWITCHBOARD_TEST_KAFKA_BROKERS;
  if (!url) throw new Error('SWITCHBOARD_TEST_KAFKA_BROKERS is not set: the Kafka mock cluster was not started by the global setup');
  return url.split(',');
};
