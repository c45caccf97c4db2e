import { z } from 'zod';
import { env, loadConfig, pemFromEnv } from '@switchboard/platform';
import type { StreamsModuleOptions } from './streams.options';

/** The standalone streams process's environment (distributed mode). Shared names are those of deploy/ and k8s/. */
export const streamsConfigSchema = z.object({
  PORT: env.port(3004),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().url(),
  /** ES256 public (or private) key PEM, to verify console access tokens. */
  JWT_PUBLIC_KEY: z.string().min(1, 'the ES256 public key (PEM or base64 PEM) is required').transform(pemFromEnv),
  KAFKA_BROKERS: env.list().refine((l) => l.length > 0, 'at least one Kafka broker'),
  KAFKA_CREATE_TOPICS: env.bool(false),
  KAFKA_IDEMPOTENT_PRODUCER: env.bool(false),
  /** Compression of produced record batches (docs/decisions/0085). */
  KAFKA_COMPRESSION: z.enum(['gzip', 'none']).default('gzip'),
  NATS_URL: env.list(['nats://127.0.0.1:4222']),
  /** Seals stream and provider tokens and keys OTP hashes: at least 16 characters, the same on every replica. */
  STREAMS_SECRET: z.string().min(16, 'at least 16 characters'),
  /** Seals WhatsApp and Telegram secrets for dispatch (events carry only the sealed text): the same value in dispatch. */
  PROVIDER_SECRETS_KEY: z.string().min(16, 'at least 16 characters'),
  STREAMS_PUBLIC_API_URL: z.string().url().default('http://localhost:3000'),
  WHATSAPP_API_BASE_URL: z.string().url().default('https://graph.facebook.com'),
  WHATSAPP_API_VERSION: z.string().default('v21.0'),
  TELEGRAM_API_BASE_URL: z.string().url().default('https://api.telegram.org'),
  STREAMS_DUPLICATE_WINDOW: env.int(300, 0),
  STREAMS_BALANCE_SLOTS: env.int(32, 1),
  STREAMS_CACHE_TTL_MS: env.int(2000, 0),
  STREAMS_SEND_POOL_SIZE: env.int(16, 1),
  /** Group commit of the stream API: sends per batch, and batches written at once (docs/decisions/0016). */
  STREAMS_SEND_BATCH_MAX: env.int(500, 1),
  STREAMS_SEND_BATCHES_IN_FLIGHT: env.int(2, 1),
  /** The stream API's TPS (0x31) held across every streams replica by buckets in PostgreSQL (false: one per process). */
  STREAMS_SHARED_TPS: env.bool(true),
  /** A send batch's charges as one event per account (docs/decisions/0178); false while an accounts process older than 0178 runs. */
  STREAMS_CHARGE_BATCHES: env.bool(true),
  /**
   * A send batch's accepted events as one event per account (docs/decisions/0181); off until every streams, dispatch,
   * accounts and stats process runs 0181.
   */
  STREAMS_ACCEPT_BATCHES: env.bool(false),
  /** A send batch's events written compactly (docs/decisions/0210); false while a streams process older than 0210 runs, and before rolling back below it. */
  STREAMS_COMPACT_SEND_ROWS: env.bool(true),
  /**
   * The sweeper of accepted messages dispatch never got (docs/decisions/0087): asked about after this long still
   * `accepted`, every interval, this many per request to dispatch, at most this many requests a sweep.
   */
  STREAMS_UNDISPATCHED_AFTER_MS: env.int(900_000, 1000),
  STREAMS_UNDISPATCHED_INTERVAL_MS: env.int(60_000, 100),
  STREAMS_UNDISPATCHED_BATCH: env.int(1000, 1).refine((n) => n <= 1000, 'at most 1000'),
  STREAMS_UNDISPATCHED_REQUESTS_PER_SWEEP: env.int(10, 1),
  /** Embedded mode's demo price: 0.05 per SMS part in countries without a price of their own (docs/decisions/0030). */
  SEED_DEMO: env.bool(false),
  MIGRATIONS_RUN: env.bool(false),
  TRUST_PROXY: z.string().default('false'),
});

export type StreamsConfig = z.infer<typeof streamsConfigSchema>;

export const loadStreamsConfig = (e: NodeJS.ProcessEnv = process.env): StreamsConfig => loadConfig('streams', streamsConfigSchema, e);

export const streamsMigrateConfigSchema = z.object({ DATABASE_URL: z.string().url() });
export const loadStreamsMigrateConfig = (e: NodeJS.ProcessEnv = process.env) => loadConfig('streams-migrate', streamsMigrateConfigSchema, e);

export function streamsModuleOptionsFromConfig(c: StreamsConfig): StreamsModuleOptions {
  return {
    secret: c.STREAMS_SECRET,
    providerSecretsKey: c.PROVIDER_SECRETS_KEY,
    publicApiUrl: c.STREAMS_PUBLIC_API_URL,
    whatsappApiBaseUrl: c.WHATSAPP_API_BASE_URL,
    whatsappApiVersion: c.WHATSAPP_API_VERSION,
    telegramApiBaseUrl: c.TELEGRAM_API_BASE_URL,
    duplicateWindowSeconds: c.STREAMS_DUPLICATE_WINDOW,
    balanceSlots: c.STREAMS_BALANCE_SLOTS,
    cacheTtlMs: c.STREAMS_CACHE_TTL_MS,
    sendPoolSize: c.STREAMS_SEND_POOL_SIZE,
    sendBatchMax: c.STREAMS_SEND_BATCH_MAX,
    sendBatchesInFlight: c.STREAMS_SEND_BATCHES_IN_FLIGHT,
    sharedTps: c.STREAMS_SHARED_TPS,
    chargeBatches: c.STREAMS_CHARGE_BATCHES,
    acceptBatches: c.STREAMS_ACCEPT_BATCHES,
    compactSendRows: c.STREAMS_COMPACT_SEND_ROWS,
    migrationsRun: c.MIGRATIONS_RUN,
    undispatched: {
      afterMs: c.STREAMS_UNDISPATCHED_AFTER_MS,
      intervalMs: c.STREAMS_UNDISPATCHED_INTERVAL_MS,
      batch: c.STREAMS_UNDISPATCHED_BATCH,
      requestsPerSweep: c.STREAMS_UNDISPATCHED_REQUESTS_PER_SWEEP,
    },
    ...(c.SEED_DEMO ? { defaultPriceMicros: 50_000 } : {}),
  };
}
