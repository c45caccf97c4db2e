import { z } from 'zod';
import { env, loadConfig, pemFromEnv } from '@switchboard/platform';
import type { StatsModuleOptions } from './stats.options';

/** The standalone stats process's environment (distributed mode); shared names as in deploy/ and k8s/. */
export const statsConfigSchema = z.object({
  PORT: env.port(3010),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().url(),
  /** ES256 public key that verifies access tokens: PEM, or base64 of it. */
  JWT_PUBLIC_KEY: z.string().min(1, 'the ES256 public key (PEM or base64 PEM) is required').transform(pemFromEnv),
  KAFKA_BROKERS: env.list().refine((l) => l.length > 0, 'at least one Kafka broker'),
  KAFKA_CREATE_TOPICS: env.bool(false),
  KAFKA_IDEMPOTENT_PRODUCER: env.bool(false),
  /** Compression of produced record batches (docs/decisions/0085). */
  KAFKA_COMPRESSION: z.enum(['gzip', 'none']).default('gzip'),
  NATS_URL: env.list(['nats://127.0.0.1:4222']),
  /** Report answers kept per account and query, in seconds (spec 9: 2 minutes). */
  STATS_CACHE_SECONDS: env.int(120, 0),
  /** Events per rollup transaction, at most. */
  STATS_MAX_BATCH: env.int(5000, 1),
  /** Rollup transactions in flight at once (docs/decisions/0174). */
  STATS_INGEST_LANES: env.int(2, 1),
  /** A campaign's send-batch request writes its messages' states (the variant) first, as before 0205: set while older streams run. */
  STATS_REQUEST_STATES: env.bool(false),
  /** Where message exports are written; a volume the stats replicas share when there are several. */
  STATS_EXPORT_DIR: z.string().default('/var/lib/switchboard/stats-exports'),
  /** Which roles this process runs: `http,consumers,relay` (rollups and exports under consumers, export progress by the relay). */
  PROCESS_ROLES: env.list(['http', 'consumers', 'relay']),
  MIGRATIONS_RUN: env.bool(false),
  TRUST_PROXY: z.string().default('false'),
});

export type StatsConfig = z.infer<typeof statsConfigSchema>;

export const loadStatsConfig = (e: NodeJS.ProcessEnv = process.env): StatsConfig => loadConfig('stats', statsConfigSchema, e);

export const statsMigrateConfigSchema = z.object({ DATABASE_URL: z.string().url() });
export const loadStatsMigrateConfig = (e: NodeJS.ProcessEnv = process.env) => loadConfig('stats-migrate', statsMigrateConfigSchema, e);

export function statsModuleOptionsFromConfig(c: StatsConfig): StatsModuleOptions {
  return { migrationsRun: c.MIGRATIONS_RUN, cacheMs: c.STATS_CACHE_SECONDS * 1000, maxBatch: c.STATS_MAX_BATCH, ingestLanes: c.STATS_INGEST_LANES, requestStates: c.STATS_REQUEST_STATES, exportDir: c.STATS_EXPORT_DIR };
}
