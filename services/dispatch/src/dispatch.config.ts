import { z } from 'zod';
import { env, loadConfig, pemFromEnv } from '@switchboard/platform';
import { embeddedDispatchOptions } from './embedded';
import type { DispatchModuleOptions } from './dispatch.options';

/**
 * The standalone dispatch process's environment (distributed mode). Shared names (DATABASE_URL, JWT_PUBLIC_KEY,
 * KAFKA_*, NATS_URL, TRUST_PROXY, MIGRATIONS_RUN) are those of deploy/ and k8s/. Vendors are managed by super
 * admins through /api/service_type_manager; the process only needs its provider-wide settings.
 */
export const dispatchConfigSchema = z.object({
  PORT: env.port(3006),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().url(),
  /** ES256 public key of the auth service (PEM or base64 PEM), to verify access tokens. */
  JWT_PUBLIC_KEY: z.string().min(1, 'the ES256 public key (PEM or base64 PEM) is required').transform(pemFromEnv),
  KAFKA_BROKERS: env.list().refine((l) => l.length > 0, 'at least one Kafka broker'),
  KAFKA_CREATE_TOPICS: env.bool(false),
  KAFKA_IDEMPOTENT_PRODUCER: env.bool(false),
  /** Compression of produced record batches (docs/decisions/0085). */
  KAFKA_COMPRESSION: z.enum(['gzip', 'none']).default('gzip'),
  /** Partitions of the accepted-message topic handled in parallel by one dispatch process. */
  KAFKA_PARTITIONS_CONCURRENTLY: env.int(8, 1),
  /** Accepted events handled at once per partition, feeding one group commit (docs/decisions/0018, 0019). */
  DISPATCH_INGEST_CONCURRENCY: env.int(500, 1),
  /** Status changes as one event per write batch (docs/decisions/0173): only once every consumer takes that form. */
  DISPATCH_STATUS_BATCHES: env.bool(true),
  /** A write batch's events as one compact outbox row (docs/decisions/0217): false while a dispatch older than 0217 runs. */
  DISPATCH_COMPACT_OUTBOX: env.bool(true),
  NATS_URL: env.list(['nats://127.0.0.1:4222']),
  MIGRATIONS_RUN: env.bool(false),
  TRUST_PROXY: z.string().default('false'),
  /** The console's public URL (the gateway in front), for Telegram setWebhook: the same name as auth's. */
  APP_URL: z.string().url().optional(),
  /** Creates embedded mode's simulator vendors (SMS, WhatsApp, Telegram) with their channels at start, once (docs/decisions/0030). */
  SEED_DEMO: env.bool(false),
  /** Deprecated alias of APP_URL (read only when APP_URL is unset). */
  PUBLIC_URL: z.string().url().optional(),
  WHATSAPP_APP_SECRET: z.string().optional(),
  WHATSAPP_VERIFY_TOKEN: z.string().optional(),
  WHATSAPP_ACCESS_TOKEN: z.string().optional(),
  WHATSAPP_API_VERSION: z.string().default('v21.0'),
  TELEGRAM_WEBHOOK_SECRET_KEY: z.string().optional(),
  /** Opens the WhatsApp and Telegram secrets streams sends sealed: the same value as streams' PROVIDER_SECRETS_KEY. */
  PROVIDER_SECRETS_KEY: z.string().min(16, 'at least 16 characters'),
  TELEGRAM_API_ID: z.coerce.number().int().positive().optional(),
  TELEGRAM_API_HASH: z.string().optional(),
  /** A message submitting this long without an outcome is queued again, flagged possible_duplicate (StuckMessageSweeper). */
  DISPATCH_STUCK_RESUME_AFTER_MS: env.int(600_000, 1000),
  /** A message queued and untouched this long is failed with a refund (StuckMessageSweeper). */
  DISPATCH_STUCK_FAIL_AFTER_MS: env.int(86_400_000, 1000),
  /** A sent message without a final receipt after this long becomes undelivered (EXPIRED). Default 72 h. */
  DISPATCH_RECEIPT_TIMEOUT_MS: env.int(259_200_000, 1000),
  /** How often carriers are asked (SMPP query_sm) about messages whose receipt is overdue; 0 turns it off. */
  DISPATCH_QUERY_SM_INTERVAL_MS: env.int(60_000, 0),
  /** A message asked about without a final answer is asked again after this long. */
  DISPATCH_QUERY_SM_REPEAT_MS: env.int(3_600_000, 1000),
  /**
   * How often a replica renews its shares of the account and stream TPS (docs/decisions/0047); 0: each process applies
   * the whole rates (one replica only).
   */
  DISPATCH_RATE_SHARE_MS: env.int(500, 0),
  /**
   * One replica at a time paces each account (its TPS and its streams'), the others hand it the account's messages
   * (docs/decisions/0094); false: each replica paces at a leased share of each rate (0047).
   */
  DISPATCH_RATE_OWNERSHIP: env.bool(true),
  /** Inbound WhatsApp and Telegram media (docs/decisions/0053, 0058): one fetch's deadline and most bytes. */
  DISPATCH_INBOUND_MEDIA_TIMEOUT_MS: env.int(30_000, 1000),
  DISPATCH_INBOUND_MEDIA_MAX_MB: env.int(100, 1),
  /** The background keeper: files downloaded at once, how often it looks, its first retry after an outage. */
  DISPATCH_INBOUND_MEDIA_KEEP_CONCURRENCY: env.int(2, 1),
  DISPATCH_INBOUND_MEDIA_KEEP_POLL_MS: env.int(1000, 50),
  DISPATCH_INBOUND_MEDIA_KEEP_RETRY_MS: env.int(5000, 100),
  /** Kept bytes are deleted this many days after they were kept, and the oldest first past the total (MB). */
  DISPATCH_INBOUND_MEDIA_KEEP_DAYS: env.int(90, 1),
  DISPATCH_INBOUND_MEDIA_MAX_TOTAL_MB: env.int(10_240, 1),
  DISPATCH_INBOUND_MEDIA_PRUNE_EVERY_MS: env.int(60_000, 1000),
  /** A download URL the provider hands over may be on 127.0.0.1/::1 (local peers only; never in production). */
  DISPATCH_INBOUND_MEDIA_ALLOW_LOOPBACK: env.bool(false),
  /** Roles of this process (a comma list of http, consumers, relay, schedulers); default all. */
  PROCESS_ROLES: env.list(['http', 'consumers', 'relay', 'schedulers']),
});

export type DispatchConfig = z.infer<typeof dispatchConfigSchema>;

export const loadDispatchConfig = (e: NodeJS.ProcessEnv = process.env): DispatchConfig => loadConfig('dispatch', dispatchConfigSchema, e);

export const dispatchMigrateConfigSchema = z.object({ DATABASE_URL: z.string().url() });
export const loadDispatchMigrateConfig = (e: NodeJS.ProcessEnv = process.env) => loadConfig('dispatch-migrate', dispatchMigrateConfigSchema, e);

export function dispatchModuleOptionsFromConfig(c: DispatchConfig): DispatchModuleOptions {
  return {
    migrationsRun: c.MIGRATIONS_RUN,
    // the simulator adapter lives in dispatch itself, so the demo vendors work without any SMSC
    seedVendors: c.SEED_DEMO ? embeddedDispatchOptions().seedVendors : undefined,
    ingestConcurrency: c.DISPATCH_INGEST_CONCURRENCY,
    statusBatches: c.DISPATCH_STATUS_BATCHES,
    compactOutbox: c.DISPATCH_COMPACT_OUTBOX,
    dispatcher: {
      receiptTimeoutMs: c.DISPATCH_RECEIPT_TIMEOUT_MS,
      queryIntervalMs: c.DISPATCH_QUERY_SM_INTERVAL_MS,
      queryRepeatMs: c.DISPATCH_QUERY_SM_REPEAT_MS,
      rateShareMs: c.DISPATCH_RATE_SHARE_MS,
      rateOwnership: c.DISPATCH_RATE_OWNERSHIP,
    },
    stuck: { resumeAfterMs: c.DISPATCH_STUCK_RESUME_AFTER_MS, failAfterMs: c.DISPATCH_STUCK_FAIL_AFTER_MS },
    publicUrl: c.APP_URL ?? c.PUBLIC_URL,
    whatsapp: c.WHATSAPP_APP_SECRET && c.WHATSAPP_VERIFY_TOKEN ? { appSecret: c.WHATSAPP_APP_SECRET, verifyToken: c.WHATSAPP_VERIFY_TOKEN, accessToken: c.WHATSAPP_ACCESS_TOKEN, apiVersion: c.WHATSAPP_API_VERSION } : undefined,
    telegram: { webhookSecretKey: c.TELEGRAM_WEBHOOK_SECRET_KEY },
    providerSecretsKey: c.PROVIDER_SECRETS_KEY,
    inboundMedia: {
      timeoutMs: c.DISPATCH_INBOUND_MEDIA_TIMEOUT_MS,
      maxBytes: c.DISPATCH_INBOUND_MEDIA_MAX_MB * 1024 * 1024,
      keepConcurrency: c.DISPATCH_INBOUND_MEDIA_KEEP_CONCURRENCY,
      keepPollMs: c.DISPATCH_INBOUND_MEDIA_KEEP_POLL_MS,
      keepRetryMs: c.DISPATCH_INBOUND_MEDIA_KEEP_RETRY_MS,
      keepForMs: c.DISPATCH_INBOUND_MEDIA_KEEP_DAYS * 86_400_000,
      maxTotalBytes: c.DISPATCH_INBOUND_MEDIA_MAX_TOTAL_MB * 1024 * 1024,
      pruneEveryMs: c.DISPATCH_INBOUND_MEDIA_PRUNE_EVERY_MS,
      allowLoopback: c.DISPATCH_INBOUND_MEDIA_ALLOW_LOOPBACK,
    },
    telegramPrivate: c.TELEGRAM_API_ID && c.TELEGRAM_API_HASH ? { apiId: c.TELEGRAM_API_ID, apiHash: c.TELEGRAM_API_HASH } : undefined,
  };
}
