import { z } from 'zod';
import { CONNECTOR_TYPES } from '@switchboard/contracts';
import { env, loadConfig, pemFromEnv } from '@switchboard/platform';
import type { IntegrationsModuleOptions, OAuthClient, VendorEndpoints } from './integrations.options';

const vendor = z.enum(CONNECTOR_TYPES as unknown as [string, ...string[]]);
const jsonRecord = <T extends z.ZodTypeAny>(value: T) =>
  z
    .string()
    .default('{}')
    .transform((s, ctx) => {
      try {
        return JSON.parse(s) as unknown;
      } catch {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a JSON object' });
        return z.NEVER;
      }
    })
    .pipe(z.record(vendor, value));

/** The standalone integrations process's environment (distributed mode); shared names as in deploy/ and k8s/. */
export const integrationsConfigSchema = z.object({
  PORT: env.port(3012),
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
  /** The console's public URL: OAuth redirect URIs and the completion screen. */
  APP_URL: z.string().url().default('http://127.0.0.1:3000'),
  /** Seals the integrations' OAuth tokens and API keys at rest: at least 16 characters, the same on every replica. */
  INTEGRATIONS_SECRET: z.string().min(16, 'at least 16 characters'),
  /** The platform's OAuth apps: `{"hubspot":{"clientId":"...","clientSecret":"..."},...}`. */
  INTEGRATIONS_OAUTH_CLIENTS: jsonRecord(z.object({ clientId: z.string().min(1), clientSecret: z.string().min(1) })),
  /** Vendor endpoint overrides: `{"hubspot":{"apiUrl":"...","authorizeUrl":"...","tokenUrl":"..."}}`. */
  INTEGRATIONS_ENDPOINTS: jsonRecord(z.object({ apiUrl: z.string().url().optional(), authorizeUrl: z.string().url().optional(), tokenUrl: z.string().url().optional() })),
  /** Never in production: lets vendor URLs be plain http on loopback and private addresses. */
  INTEGRATIONS_ALLOW_PRIVATE_URLS: env.bool(false),
  /** DNS servers (`host:port`, comma-separated) for the vendor and AI provider address check; empty: the system resolver. */
  INTEGRATIONS_DNS_SERVERS: env.list([]),
  /** How often an active integration asks its vendor for changes, in seconds. */
  INTEGRATIONS_INCREMENTAL_SECONDS: env.int(300, 1),
  /** Which roles this process runs: `http,consumers,relay,schedulers` (the sync worker runs under schedulers). */
  PROCESS_ROLES: env.list(['http', 'consumers', 'relay', 'schedulers']),
  /** Opens the conversation context the inbox seals for the AI answer (the inbox's GENAI_CONTEXT_KEY). Optional. */
  GENAI_CONTEXT_KEY: z.string().min(16, 'at least 16 characters').optional(),
  /** A generative-AI provider's answer must come within this many milliseconds. */
  GENAI_TIMEOUT_MS: env.int(30_000, 10),
  /** A streamed AI answer (Accept: application/x-ndjson or text/event-stream) ends after this many milliseconds at most. */
  GENAI_STREAM_MAX_MS: env.int(120_000, 10),
  /** Private provider origins accounts may use (a shared Ollama): `http://ollama:11434,http://vllm.lan:8000`. */
  GENAI_PRIVATE_BASE_URLS: env.list([]),
  MIGRATIONS_RUN: env.bool(false),
  TRUST_PROXY: z.string().default('false'),
});

export type IntegrationsConfig = z.infer<typeof integrationsConfigSchema>;

export const loadIntegrationsConfig = (e: NodeJS.ProcessEnv = process.env): IntegrationsConfig => loadConfig('integrations', integrationsConfigSchema, e);

export const integrationsMigrateConfigSchema = z.object({ DATABASE_URL: z.string().url() });
export const loadIntegrationsMigrateConfig = (e: NodeJS.ProcessEnv = process.env) => loadConfig('integrations-migrate', integrationsMigrateConfigSchema, e);

export function integrationsModuleOptionsFromConfig(c: IntegrationsConfig): IntegrationsModuleOptions {
  return {
    secret: c.INTEGRATIONS_SECRET,
    appUrl: c.APP_URL,
    oauthClients: c.INTEGRATIONS_OAUTH_CLIENTS as IntegrationsModuleOptions['oauthClients'] & Record<string, OAuthClient>,
    endpoints: c.INTEGRATIONS_ENDPOINTS as IntegrationsModuleOptions['endpoints'] & Record<string, VendorEndpoints>,
    allowPrivateUrls: c.INTEGRATIONS_ALLOW_PRIVATE_URLS,
    dnsServers: c.INTEGRATIONS_DNS_SERVERS,
    incrementalEveryMs: c.INTEGRATIONS_INCREMENTAL_SECONDS * 1000,
    migrationsRun: c.MIGRATIONS_RUN,
    genai: { contextKey: c.GENAI_CONTEXT_KEY, timeoutMs: c.GENAI_TIMEOUT_MS, streamMaxMs: c.GENAI_STREAM_MAX_MS, privateBaseUrls: c.GENAI_PRIVATE_BASE_URLS },
  };
}
