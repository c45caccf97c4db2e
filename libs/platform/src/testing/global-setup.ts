import * as os from 'node:os';
import * as path from 'node:path';
import { startEmbeddedPostgres, type RunningPostgres } from '../database/embedded-postgres';
import { hasCommand, startKafkaMock, startNatsServer, type RunningBroker } from './brokers';

/**
 * Starts, once per jest run: a real PostgreSQL (embedded-postgres), Debian's nats-server and librdkafka's mock
 * Kafka cluster. Each test file makes its own database with createTestDatabase(). Broker tests are mandatory:
 * without the binaries the run fails, unless SWITCHBOARD_SKIP_BROKER_TESTS=1 excludes those files (never in CI).
 */
export default async function globalSetup(): Promise<void> {
  const g = globalThis as unknown as { __sb: { pg: RunningPostgres; brokers: RunningBroker[] } };
  const dataDir = path.join(os.tmpdir(), `switchboard-test-${process.pid}-${Date.now()}`, 'pg');
  const pg = await startEmbeddedPostgres({ dataDir, persistent: false });
  process.env.SWITCHBOARD_TEST_PG_URL = pg.url();
  const brokers: RunningBroker[] = [];
  g.__sb = { pg, brokers };

  const skip = process.env.SWITCHBOARD_SKIP_BROKER_TESTS === '1';
  if (skip && process.env.CI) throw new Error('SWITCHBOARD_SKIP_BROKER_TESTS is not allowed in CI: broker tests are mandatory there');
  if (!skip) {
    const missing = ['nats-server', 'kcat'].filter((c) => !hasCommand(c));
    if (missing.length) {
      throw new Error(
        `broker tests need ${missing.join(' and ')} (Debian packages nats-server and kcat; npm test installs them with apt when it can). ` +
          'Install them, or run with SWITCHBOARD_SKIP_BROKER_TESTS=1 to leave the broker test files out.',
      );
    }
    const nats = await startNatsServer();
    brokers.push(nats);
    process.env.SWITCHBOARD_TEST_NATS_URL = nats.url;
    const kafka = await startKafkaMock();
    brokers.push(kafka);
    process.env.SWITCHBOARD_TEST_KAFKA_BROKERS = kafka.url;
  }
}
