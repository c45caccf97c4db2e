import * as os from 'node:os';
import * as path from 'node:path';

export interface StatsModuleOptions {
  /** Run the stats migrations at start (embedded mode, tests); distributed mode runs them in a Job. Default true. */
  migrationsRun?: boolean;
  /** How long a report answer is kept per account and query (spec 9: statistics cache 2 minutes). Default 120 000 ms. */
  cacheMs?: number;
  /** Events per rollup transaction, at most, and the rollup subscription's handler concurrency (a chunk feeds one batch). Default 5000. */
  maxBatch?: number;
  /**
   * Rollup transactions in flight at once, each on its own connection, an account's events always in the same one
   * (docs/decisions/0174). Default 2: node builds one batch while PostgreSQL runs the other.
   */
  ingestLanes?: number;
  /**
   * Whether a campaign's send-batch request writes each message's state (campaign and variant) before its acceptance,
   * as before docs/decisions/0205. Default false: the variant comes on the acceptance (streams from 0205 on passes it
   * through) and the request is not taken, so a campaign message's state is written once by its acceptance and once a
   * status. Set true while any streams process older than 0205 runs (their acceptances carry no variant).
   */
  requestStates?: boolean;
  /** Where message exports are written (docs/decisions/0046). Default `<data dir>/stats/exports`, else the system temp dir. */
  exportDir?: string;
  /** How often the export worker looks for work, ms. Default 1000. */
  exportPollMs?: number;
}

export interface ResolvedStatsOptions {
  migrationsRun: boolean;
  cacheMs: number;
  maxBatch: number;
  ingestLanes: number;
  requestStates: boolean;
  exportDir: string;
  exportPollMs: number;
}

export const STATS_OPTIONS = Symbol('STATS_OPTIONS');
export const STATS_CONNECTION = 'stats';
export const STATS_SCHEMA = 'stats';

export function resolveStatsOptions(o: StatsModuleOptions, dataDir?: string): ResolvedStatsOptions {
  const cacheMs = o.cacheMs ?? 120_000;
  const maxBatch = o.maxBatch ?? 5000;
  if (!Number.isInteger(cacheMs) || cacheMs < 0) throw new Error(`StatsModule: cacheMs must be a non-negative integer (got ${String(o.cacheMs)})`);
  if (!Number.isInteger(maxBatch) || maxBatch <= 0) throw new Error(`StatsModule: maxBatch must be a positive integer (got ${String(o.maxBatch)})`);
  const ingestLanes = o.ingestLanes ?? 2;
  if (!Number.isInteger(ingestLanes) || ingestLanes < 1 || ingestLanes > 16) throw new Error(`StatsModule: ingestLanes must be an integer from 1 to 16 (got ${String(o.ingestLanes)})`);
  const exportDir = path.resolve(o.exportDir ?? (dataDir ? path.join(dataDir, 'stats', 'exports') : path.join(os.tmpdir(), 'switchboard-stats-exports')));
  return { migrationsRun: o.migrationsRun ?? true, cacheMs, maxBatch, ingestLanes, requestStates: o.requestStates ?? false, exportDir, exportPollMs: o.exportPollMs ?? 1000 };
}
