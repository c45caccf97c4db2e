import { Clock, SystemClock } from './clock';
import type { RunnerOptions } from './run/runner.options';

export interface CampaignsModuleOptions {
  /** Run the campaigns migrations at start (embedded mode, tests); distributed mode runs them before the service. Default true. */
  migrationsRun?: boolean;
  /** Samples a spintax preview answers at most (`POST /inbox/spintax`). Default 50. */
  maxPreviewSamples?: number;
  clock?: Clock;
  /** The campaign runner (docs/decisions/0032-campaign-runner.md). */
  runner?: RunnerOptions;
}

export interface ResolvedCampaignsOptions {
  migrationsRun: boolean;
  maxPreviewSamples: number;
}

export const CAMPAIGNS_OPTIONS = Symbol('CAMPAIGNS_OPTIONS');
export const CAMPAIGNS_CONNECTION = 'campaigns';
export const CAMPAIGNS_SCHEMA = 'campaigns';

export function resolveCampaignsOptions(o: CampaignsModuleOptions): ResolvedCampaignsOptions {
  const maxPreviewSamples = o.maxPreviewSamples ?? 50;
  if (!Number.isInteger(maxPreviewSamples) || maxPreviewSamples <= 0) throw new Error(`CampaignsModule: maxPreviewSamples must be a positive integer (got ${String(o.maxPreviewSamples)})`);
  return { migrationsRun: o.migrationsRun ?? true, maxPreviewSamples };
}

export function createClock(o: CampaignsModuleOptions): Clock {
  return o.clock ?? new SystemClock();
}
