import { z } from 'zod';
import { env, loadConfig, pemFromEnv } from '@switchboard/platform';
import type { CampaignsModuleOptions } from './campaigns.options';

/** The standalone campaigns process's environment (distributed mode); shared names as in deploy/ and k8s/. */
export const campaignsConfigSchema = z.object({
  PORT: env.port(3005),
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
  /** Samples a spintax preview answers at most. */
  CAMPAIGNS_MAX_PREVIEW_SAMPLES: env.int(50, 1),
  /** The campaign runner (docs/decisions/0032-campaign-runner.md): pause between passes, ms. */
  CAMPAIGNS_RUNNER_INTERVAL_MS: env.int(100, 1),
  /** A send batch streams has not answered after this long is requested again (same messageUuids), ms. */
  CAMPAIGNS_RUNNER_RESEND_AFTER_MS: env.int(60_000, 1000),
  /** How long a runner holds a campaign without renewing it before another takes over, ms. */
  CAMPAIGNS_RUNNER_LEASE_MS: env.int(10_000, 1000),
  /**
   * Statuses campaigns lost (docs/decisions/0093): a recipient accepted by streams without a final status this long
   * after its request or its last question is asked of dispatch, ms; every CAMPAIGNS_STATUSES_INTERVAL_MS; recipients
   * per request (at most 1000); requests per sweep.
   */
  /** Send requests recorded once a batch (docs/decisions/0188); off until every campaigns replica runs this release. */
  CAMPAIGNS_RUNNER_BATCH_REQUESTS: env.bool(false),
  CAMPAIGNS_STATUSES_AFTER_MS: env.int(1_800_000, 1000),
  CAMPAIGNS_STATUSES_INTERVAL_MS: env.int(60_000, 100),
  CAMPAIGNS_STATUSES_BATCH: env.int(1000, 1).refine((n) => n <= 1000, 'at most 1000'),
  CAMPAIGNS_STATUSES_REQUESTS_PER_SWEEP: env.int(10, 1),
  /** Which roles this process runs: `http,consumers,relay,schedulers`. */
  PROCESS_ROLES: env.list(['http', 'consumers', 'relay', 'schedulers']),
  MIGRATIONS_RUN: env.bool(false),
  TRUST_PROXY: z.string().default('false'),
});

export type CampaignsConfig = z.infer<typeof campaignsConfigSchema>;

export const loadCampaignsConfig = (e: NodeJS.ProcessEnv = process.env): CampaignsConfig => loadConfig('campaigns', campaignsConfigSchema, e);

export const campaignsMigrateConfigSchema = z.object({ DATABASE_URL: z.string().url() });
export const loadCampaignsMigrateConfig = (e: NodeJS.ProcessEnv = process.env) => loadConfig('campaigns-migrate', campaignsMigrateConfigSchema, e);

export function campaignsModuleOptionsFromConfig(c: CampaignsConfig): CampaignsModuleOptions {
  return {
    migrationsRun: c.MIGRATIONS_RUN,
    maxPreviewSamples: c.CAMPAIGNS_MAX_PREVIEW_SAMPLES,
    runner: {
      intervalMs: c.CAMPAIGNS_RUNNER_INTERVAL_MS,
      resendAfterMs: c.CAMPAIGNS_RUNNER_RESEND_AFTER_MS,
      leaseMs: c.CAMPAIGNS_RUNNER_LEASE_MS,
      batchRequests: c.CAMPAIGNS_RUNNER_BATCH_REQUESTS,
      statuses: campaignStatusesFromConfig(c),
    },
  };
}

/** The status questions' settings (docs/decisions/0093) from the environment; embedded mode reads the same keys. */
export function campaignStatusesFromConfig(
  c: Pick<CampaignsConfig, 'CAMPAIGNS_STATUSES_AFTER_MS' | 'CAMPAIGNS_STATUSES_INTERVAL_MS' | 'CAMPAIGNS_STATUSES_BATCH' | 'CAMPAIGNS_STATUSES_REQUESTS_PER_SWEEP'>,
): { afterMs: number; intervalMs: number; batch: number; requestsPerSweep: number } {
  return { afterMs: c.CAMPAIGNS_STATUSES_AFTER_MS, intervalMs: c.CAMPAIGNS_STATUSES_INTERVAL_MS, batch: c.CAMPAIGNS_STATUSES_BATCH, requestsPerSweep: c.CAMPAIGNS_STATUSES_REQUESTS_PER_SWEEP };
}
