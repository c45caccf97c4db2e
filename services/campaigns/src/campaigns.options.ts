import { Clock, SystemClock } from './clock';
import type { RunnerOptions } from './run/runner.options';

export interface CampaignsModuleOptions {
  /** Run the campaigns migrations at start (embedded mode, tests); distributed mode runs them before the service. Default true. */
  migrationsRun?: boolean;
  /** Samples a spintax preview answers at most (`POST /inbox/spintax`). Default 50. */
  maxPreviewSamples?: number;
  /** How often scheduled campaigns whose date came are started, ms; 0: never (tests call fireDue). Default 1000. */
  schedulerIntervalMs?: number;
  clock?: Clock;
  /** The campaign runner (docs/decisions/0032-campaign-runner.md). */
  runner?: RunnerOptions;
}

export interface ResolvedCampaignsOptions {
  migrationsRun: boolean;
  maxPreviewSamples: number;
  schedulerIntervalMs: number;
}

export const CAMPAIGNS_OPTIONS = Symbol('CAMPAIGNS_OPTIONS');
export const CAMPAIGNS_CONNECTION = 'campaigns';
export const CAMPAIGNS_SCHEMA = 'campaigns';

export function resolveCampaignsOptions(o: CampaignsModuleOptions): ResolvedCampaignsOptions {
  const maxPreviewSamples = o.maxPreviewSamples ?? 50;
  if (!Number.isInteger(maxPreviewSamples) || maxPreviewSamples <= 0) throw new Error(`CampaignsModule: maxPreviewSamples must be a positive integer (got ${String(o.maxPreviewSamples)})`);
  const schedulerIntervalMs = o.schedulerIntervalMs ?? 1000;
  if (!Number.isInteger(schedulerIntervalMs) || schedulerIntervalMs < 0) throw new Error(`CampaignsModule: schedulerIntervalMs must be 0 or more (got ${String(o.schedulerIntervalMs)})`);
  return { migrationsRun: o.migrationsRun ?? true, maxPreviewSamples, schedulerIntervalMs };
}

export function createClock(o: CampaignsModuleOptions): Clock {
  return o.clock ?? new SystemClock();
}
