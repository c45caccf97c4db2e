import { z } from 'zod';
import { env, loadConfig, pemFromEnv } from '@switchboard/platform';
import type { WebhooksModuleOptions } from './webhooks.options';

/** The standalone webhooks process's environment (distributed mode). Shared names are those of deploy/ and k8s/. */
export const webhooksConfigSchema = z.object({
  PORT: env.port(3009),
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
  /** Seals the webhooks' signing secrets at rest: at least 16 characters, the same on every replica. */
  WEBHOOKS_SECRET: z.string().min(16, 'at least 16 characters'),
  /** Destination ports webhook URLs may use (comma-separated), or `any`. */
  WEBHOOKS_ALLOWED_PORTS: z.string().default('80,443,8080,8443'),
  WEBHOOKS_TIMEOUT_MS: env.int(10_000, 10),
  WEBHOOKS_CONCURRENCY: env.int(64, 1),
  WEBHOOKS_PER_HOST_CONCURRENCY: env.int(8, 1),
  /** Requests in flight per keep-alive connection (HTTP/1.1 pipelining); 1 (the default) turns it off. */
  WEBHOOKS_PIPELINING: env.int(1, 1),
  /** Never in production: lets deliveries reach 127.0.0.0/8 and ::1. */
  WEBHOOKS_ALLOW_LOOPBACK: env.bool(false),
  MIGRATIONS_RUN: env.bool(false),
  TRUST_PROXY: z.string().default('false'),
});

export type WebhooksConfig = z.infer<typeof webhooksConfigSchema>;

export const loadWebhooksConfig = (e: NodeJS.ProcessEnv = process.env): WebhooksConfig => loadConfig('webhooks', webhooksConfigSchema, e);

export const webhooksMigrateConfigSchema = z.object({ DATABASE_URL: z.string().url() });
export const loadWebhooksMigrateConfig = (e: NodeJS.ProcessEnv = process.env) => loadConfig('webhooks-migrate', webhooksMigrateConfigSchema, e);

export function parseAllowedPorts(v: string): number[] | 'any' {
  if (v.trim() === 'any') return 'any';
  return v.split(/[,\s]+/).filter(Boolean).map((p) => {
    const n = Number(p);
    if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`WEBHOOKS_ALLOWED_PORTS: "${p}" is not a port`);
    return n;
  });
}

export function webhooksModuleOptionsFromConfig(c: WebhooksConfig): WebhooksModuleOptions {
  return {
    secret: c.WEBHOOKS_SECRET,
    allowedPorts: parseAllowedPorts(c.WEBHOOKS_ALLOWED_PORTS),
    timeoutMs: c.WEBHOOKS_TIMEOUT_MS,
    concurrency: c.WEBHOOKS_CONCURRENCY,
    perHostConcurrency: c.WEBHOOKS_PER_HOST_CONCURRENCY,
    pipelining: c.WEBHOOKS_PIPELINING,
    allowLoopback: c.WEBHOOKS_ALLOW_LOOPBACK,
    migrationsRun: c.MIGRATIONS_RUN,
  };
}
