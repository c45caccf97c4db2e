import { z } from 'zod';
import { env, loadConfig, pemFromEnv } from '@switchboard/platform';
import type { InboxModuleOptions } from './inbox.options';

/** The standalone inbox process's environment (distributed mode); shared names as in deploy/ and k8s/. */
export const inboxConfigSchema = z.object({
  PORT: env.port(3008),
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
  /** Which roles this process runs: `http,consumers,relay` (conversations are fed under consumers). */
  PROCESS_ROLES: env.list(['http', 'consumers', 'relay']),
  /** Media in a local directory (one replica, or a shared volume); ignored when INBOX_S3_BUCKET is set. */
  INBOX_MEDIA_DIR: z.string().default('/var/lib/switchboard/inbox-media'),
  /** Media in an S3-compatible bucket (MinIO in deploy/compose.yaml): every replica sees every file. */
  INBOX_S3_BUCKET: z.string().optional(),
  INBOX_S3_ENDPOINT: z.string().url().optional(),
  INBOX_S3_REGION: z.string().default('us-east-1'),
  INBOX_S3_ACCESS_KEY_ID: z.string().optional(),
  INBOX_S3_SECRET_ACCESS_KEY: z.string().optional(),
  /** Dispatch's URL (or the gateway's) for inbound WhatsApp and Telegram media, e.g. http://dispatch:3006. */
  INBOX_DISPATCH_URL: z.string().url().default('http://127.0.0.1:3006'),
  /** How long a send waits for streams' answer before answering OK with the message still `sending`, in ms. */
  INBOX_SEND_WAIT_MS: env.int(5000, 0),
  /** Totals no counter keeps are counted up to one past this; the console shows `1000+` above it. */
  INBOX_TOTALS_CAP: env.int(1000, 1),
  /** Seals the conversation context handed to the integrations service's AI answer (the same value there). Optional. */
  GENAI_CONTEXT_KEY: z.string().min(16, 'at least 16 characters').optional(),
  MIGRATIONS_RUN: env.bool(false),
  TRUST_PROXY: z.string().default('false'),
});

export type InboxConfig = z.infer<typeof inboxConfigSchema>;

export const loadInboxConfig = (e: NodeJS.ProcessEnv = process.env): InboxConfig => loadConfig('inbox', inboxConfigSchema, e);

export const inboxMigrateConfigSchema = z.object({ DATABASE_URL: z.string().url() });
export const loadInboxMigrateConfig = (e: NodeJS.ProcessEnv = process.env) => loadConfig('inbox-migrate', inboxMigrateConfigSchema, e);

export function inboxModuleOptionsFromConfig(c: InboxConfig): InboxModuleOptions {
  return {
    migrationsRun: c.MIGRATIONS_RUN,
    sendWaitMs: c.INBOX_SEND_WAIT_MS,
    totalsCap: c.INBOX_TOTALS_CAP,
    genAiContextKey: c.GENAI_CONTEXT_KEY,
    dispatchUrl: c.INBOX_DISPATCH_URL,
    media: c.INBOX_S3_BUCKET
      ? { s3: { bucket: c.INBOX_S3_BUCKET, endpoint: c.INBOX_S3_ENDPOINT, region: c.INBOX_S3_REGION, accessKeyId: c.INBOX_S3_ACCESS_KEY_ID, secretAccessKey: c.INBOX_S3_SECRET_ACCESS_KEY } }
      : { dir: c.INBOX_MEDIA_DIR },
  };
}
