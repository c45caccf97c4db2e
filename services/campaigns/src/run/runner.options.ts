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
  /**
   * A snapshot that has delivered part of its audience (or its last chunk) and then nothing for this long is asked
   * again from the start (docs/decisions/0113): chunks the broker deleted before campaigns read them (a partition's
   * retention, an offset reset) never come. Default 300,000 ms; 0 turns it off.
   */
  audienceStallMs?: number;
  /** This runner's name in leases. Default: random. */
  instanceId?: string;
  /** CTR rules: recipients accepted at least this long ago make the sample (clicks need time). Default 30 min. */
  ctrDelayMs?: number;
  /** CTR rules: the smallest sample judged (and the fresh sample needed after a CTR halt). Default 200. */
  ctrMinSample?: number;
  /** CTR rules: judged at most this often per campaign. Default 60 s. */
  ctrEveryMs?: number;
  /**
   * Asking dispatch for statuses campaigns never got (docs/decisions/0093): a recipient accepted by streams whose
   * status is not final this long after its request or its last question is asked about (default 30 min), every
   * `intervalMs` (60 s; 0: no timer, tests call `sweepOnce`), `batch` recipients a request (1000, at most 1000), at
   * most `requestsPerSweep` requests a sweep (10).
   */
  /**
   * A send batch recorded once (a `campaigns.send_batch` row) instead of every recipient updated to state 2
   * (docs/decisions/0188). Default false: turn it on once every campaigns replica runs a release that reads batch rows
   * (an older one takes their recipients for strays); embedded mode turns it on.
   */
  batchRequests?: boolean;
  statuses?: { afterMs?: number; intervalMs?: number; batch?: number; requestsPerSweep?: number };
}

export type ResolvedRunnerOptions = Required<Omit<RunnerOptions, 'statuses'>> & { statuses: { afterMs: number; intervalMs: number; batch: number; requestsPerSweep: number } };

export const RUNNER_OPTIONS = Symbol('RUNNER_OPTIONS');

export function resolveRunnerOptions(o: RunnerOptions = {}): ResolvedRunnerOptions {
  const r: ResolvedRunnerOptions = {
    intervalMs: o.intervalMs ?? 100,
    batchMax: o.batchMax ?? 1000,
    resendAfterMs: o.resendAfterMs ?? 60_000,
    leaseMs: o.leaseMs ?? 10_000,
    audienceBatchSize: o.audienceBatchSize ?? 2000,
    audienceFormat: o.audienceFormat ?? 'copy',
    audienceStallMs: o.audienceStallMs ?? 300_000,
    instanceId: o.instanceId ?? `runner-${randomUUID()}`,
    ctrDelayMs: o.ctrDelayMs ?? 30 * 60_000,
    ctrMinSample: o.ctrMinSample ?? 200,
    ctrEveryMs: o.ctrEveryMs ?? 60_000,
    batchRequests: o.batchRequests ?? false,
    statuses: {
      afterMs: o.statuses?.afterMs ?? 30 * 60_000,
      intervalMs: o.statuses?.intervalMs ?? 60_000,
      batch: o.statuses?.batch ?? 1000,
      requestsPerSweep: o.statuses?.requestsPerSweep ?? 10,
    },
  };
  if (!(r.batchMax >= 1 && r.batchMax <= 1000)) throw new Error(`CampaignsModule: runner.batchMax must be 1 to 1000 (got ${r.batchMax})`);
  if (!(r.audienceBatchSize >= 1 && r.audienceBatchSize <= 5000)) throw new Error(`CampaignsModule: runner.audienceBatchSize must be 1 to 5000 (got ${r.audienceBatchSize})`);
  const st = r.statuses;
  if (!(Number.isInteger(st.afterMs) && st.afterMs >= 1000)) throw new Error(`CampaignsModule: runner.statuses.afterMs must be 1000 or more (got ${st.afterMs})`);
  if (!(Number.isInteger(st.intervalMs) && st.intervalMs >= 0)) throw new Error(`CampaignsModule: runner.statuses.intervalMs must be 0 or more (got ${st.intervalMs})`);
  if (!(Number.isInteger(st.batch) && st.batch >= 1 && st.batch <= 1000)) throw new Error(`CampaignsModule: runner.statuses.batch must be 1 to 1000 (got ${st.batch})`);
  if (!(Number.isInteger(st.requestsPerSweep) && st.requestsPerSweep >= 1)) throw new Error(`CampaignsModule: runner.statuses.requestsPerSweep must be 1 or more (got ${st.requestsPerSweep})`);
  if (!(r.intervalMs >= 0)) throw new Error('CampaignsModule: runner.intervalMs must be 0 or more');
  return r;
}
