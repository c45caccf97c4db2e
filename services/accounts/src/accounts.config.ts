import { z } from 'zod';
import { env, loadConfig } from '@switchboard/platform';
import type { AccountsModuleOptions } from './accounts.options';

/**
 * The standalone accounts process's environment (distributed mode). Shared names (DATABASE_URL, JWT_PUBLIC_KEY,
 * KAFKA_*, NATS_URL, SMTP_URL, MAIL_FROM, TRUST_PROXY, MIGRATIONS_RUN) are those of deploy/ and k8s/.
 */
export const accountsConfigSchema = z.object({
  PORT: env.port(3002),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().url(),
  /** The auth service's ES256 public key: PEM, or base64 of the PEM. */
  JWT_PUBLIC_KEY: z.string().min(1, 'the ES256 public key (PEM or base64 PEM) is required'),
  KAFKA_BROKERS: env.list().refine((l) => l.length > 0, 'at least one Kafka broker'),
  KAFKA_CREATE_TOPICS: env.bool(false),
  KAFKA_IDEMPOTENT_PRODUCER: env.bool(false),
  /** Compression of produced record batches (docs/decisions/0085). */
  KAFKA_COMPRESSION: z.enum(['gzip', 'none']).default('gzip'),
  NATS_URL: env.list(['nats://127.0.0.1:4222']),
  /** Optional: feature access requests are mailed to ACCOUNTS_FEATURE_REQUEST_TO when both are set. */
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().min(1).default('Switchboard <no-reply@switchboard.local>'),
  ACCOUNTS_FEATURE_REQUEST_TO: env.list(),
  ACCOUNTS_DEFAULT_TPS: env.int(10, 0),
  ACCOUNTS_DEFAULT_CURRENCY: z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code').default('EUR'),
  /** Creates embedded mode's demo account (active, 100.00 credit, the default TPS) at start, once (docs/decisions/0030). */
  SEED_DEMO: env.bool(false),
  /** The demo account's name, when SEED_DEMO is on (auth records the same name for the first administrator). */
  SWITCHBOARD_DEMO_ACCOUNT: z.string().min(1).default('Demo account'),
  /** Distributed mode migrates in a Job (`migrate.js`); set true to migrate at start instead. */
  MIGRATIONS_RUN: env.bool(false),
  /** The reconciliation of charges with streams (docs/decisions/0114, README); bounds as in AccountsModuleOptions. */
  ACCOUNTS_CHARGES_RECONCILE_INTERVAL_MS: env.int(60_000, 100),
  ACCOUNTS_CHARGES_RECONCILE_AFTER_MS: env.int(900_000, 1000),
  ACCOUNTS_CHARGES_RECONCILE_WINDOW_MS: env.int(60_000, 1000).refine((n) => n <= 3_600_000, 'at most 3600000'),
  ACCOUNTS_CHARGES_RECONCILE_BATCH: env.int(1000, 1).refine((n) => n <= 1000, 'at most 1000'),
  ACCOUNTS_CHARGES_RECONCILE_REQUESTS_PER_PASS: env.int(10, 1),
  ACCOUNTS_CHARGES_RECONCILE_RECHECK_WITHIN_MS: env.int(259_200_000, 0),
  TRUST_PROXY: z.string().default('false'),
});

export type AccountsConfig = z.infer<typeof accountsConfigSchema>;

export const loadAccountsConfig = (e: NodeJS.ProcessEnv = process.env): AccountsConfig => loadConfig('accounts', accountsConfigSchema, e);

export const accountsMigrateConfigSchema = z.object({ DATABASE_URL: z.string().url() });
export const loadAccountsMigrateConfig = (e: NodeJS.ProcessEnv = process.env) => loadConfig('accounts-migrate', accountsMigrateConfigSchema, e);

export function accountsModuleOptionsFromConfig(c: AccountsConfig): AccountsModuleOptions {
  return {
    migrationsRun: c.MIGRATIONS_RUN,
    featureRequestRecipients: c.SMTP_URL ? c.ACCOUNTS_FEATURE_REQUEST_TO : [],
    defaultTps: c.ACCOUNTS_DEFAULT_TPS,
    defaultCurrency: c.ACCOUNTS_DEFAULT_CURRENCY,
    chargeReconcile: chargeReconcileFromConfig(c),
  };
}

/** The reconciliation's settings (docs/decisions/0114) from the environment; embedded mode reads the same keys. */
export function chargeReconcileFromConfig(
  c: Pick<
    AccountsConfig,
    | 'ACCOUNTS_CHARGES_RECONCILE_INTERVAL_MS'
    | 'ACCOUNTS_CHARGES_RECONCILE_AFTER_MS'
    | 'ACCOUNTS_CHARGES_RECONCILE_WINDOW_MS'
    | 'ACCOUNTS_CHARGES_RECONCILE_BATCH'
    | 'ACCOUNTS_CHARGES_RECONCILE_REQUESTS_PER_PASS'
    | 'ACCOUNTS_CHARGES_RECONCILE_RECHECK_WITHIN_MS'
  >,
): NonNullable<AccountsModuleOptions['chargeReconcile']> {
  return {
    intervalMs: c.ACCOUNTS_CHARGES_RECONCILE_INTERVAL_MS,
    afterMs: c.ACCOUNTS_CHARGES_RECONCILE_AFTER_MS,
    windowMs: c.ACCOUNTS_CHARGES_RECONCILE_WINDOW_MS,
    batch: c.ACCOUNTS_CHARGES_RECONCILE_BATCH,
    requestsPerPass: c.ACCOUNTS_CHARGES_RECONCILE_REQUESTS_PER_PASS,
    recheckWithinMs: c.ACCOUNTS_CHARGES_RECONCILE_RECHECK_WITHIN_MS,
  };
}
