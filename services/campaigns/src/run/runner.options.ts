import { randomUUID } from 'node:crypto';

/** The campaign runner's settings (docs/decisions/0032-campaign-runner.md). */
export interface RunnerOptions {
  /** Pause between two passes over the running campaigns, ms; 0: no loop (tests call `runOnce`). Default 100. */
  intervalMs?: number;
  /** Most recipients one send (or link) batch holds. Default 1000 (the contract's maximum). */
  batchMax?: number;
  /** A batch requested from streams and not answered after this long is requested again (same messageUuids). Default 60 s. */
  resendAfterMs?: number;
  /** How long a runner holds a campaign without renewing it; another takes over after that. Default 10 s. */
  leaseMs?: number;
  /** Recipients per audience batch asked of contacts (the `columns` format). Default 2000. */
  audienceBatchSize?: number;
  /**
   * How contacts hands the audience over: `copy` (default; COPY text chunks, docs/decisions/0043) or `columns` (the
   * batches of 0032, kept for comparison in bench/campaign-snapshot.ts).
   */
  audienceFormat?: 'copy' | 'columns';
  /** This runner's name in leases. Default: random. */
  instanceId?: string;
  /** CTR rules: recipients accepted at least this long ago make the sample (clicks need time). Default 30 min. */
  ctrDelayMs?: number;
  /** CTR rules: the smallest sample judged (and the fresh sample needed after a CTR halt). Default 200. */
  ctrMinSample?: number;
  /** CTR rules: judged at most this often per campaign. Default 60 s. */
  ctrEveryMs?: number;
}

export type ResolvedRunnerOptions = Required<RunnerOptions>;

export const RUNNER_OPTIONS = Symbol('RUNNER_OPTIONS');

export function resolveRunnerOptions(o: RunnerOptions = {}): ResolvedRunnerOptions {
  const r: ResolvedRunnerOptions = {
    intervalMs: o.intervalMs ?? 100,
    batchMax: o.batchMax ?? 1000,
    resendAfterMs: o.resendAfterMs ?? 60_000,
    leaseMs: o.leaseMs ?? 10_000,
    audienceBatchSize: o.audienceBatchSize ?? 2000,
    audienceFormat: o.audienceFormat ?? 'copy',
    instanceId: o.instanceId ?? `runner-${randomUUID()}`,
    ctrDelayMs: o.ctrDelayMs ?? 30 * 60_000,
    ctrMinSample: o.ctrMinSample ?? 200,
    ctrEveryMs: o.ctrEveryMs ?? 60_000,
  };
  if (!(r.batchMax >= 1 && r.batchMax <= 1000)) throw new Error(`CampaignsModule: runner.batchMax must be 1 to 1000 (got ${r.batchMax})`);
  if (!(r.audienceBatchSize >= 1 && r.audienceBatchSize <= 5000)) throw new Error(`CampaignsModule: runner.audienceBatchSize must be 1 to 5000 (got ${r.audienceBatchSize})`);
  if (!(r.intervalMs >= 0)) throw new Error('CampaignsModule: runner.intervalMs must be 0 or more');
  return r;
}
