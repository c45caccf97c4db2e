import type { RunningPostgres } from '../database/embedded-postgres';
import type { RunningBroker } from './brokers';

export default async function globalTeardown(): Promise<void> {
  const g = globalThis as unknown as { __sb?: { pg: RunningPostgres; brokers: RunningBroker[] } };
  if (!g.__sb) return;
  await Promise.all(g.__sb.brokers.map((b) => b.stop()));
  await g.__sb.pg.stop();
}
