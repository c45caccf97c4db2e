import * as os from 'node:os';
import * as path from 'node:path';
import { defaultWorkerCount } from './import/worker-pool';

/** Test seams of the import runner: called after each batch is applied inside the import's transaction. */
export interface ImportHooks {
  afterBatch?: (importListId: string, batch: number) => Promise<void> | void;
}

export interface ContactsModuleOptions {
  /**
   * Where uploads and task files live. Default: `<DATA_DIR>/contacts` in embedded mode, else a directory under the
   * OS temp dir. Replicas of the distributed service must share it (a volume), since any replica may resume an import.
   */
  storageDir?: string;
  /** Largest accepted upload in bytes; default 100 MiB (spec 9, "File size limit 100", read as MB). */
  maxUploadBytes?: number;
  /** Phone validation threads; default one per core, at most 4. */
  workers?: number;
  /** Rows per batch sent to a worker and merged in one statement; default 10 000. */
  batchSize?: number;
  /** An import or task whose process stopped renewing its lease for this long is taken over; default 30 s. */
  leaseSeconds?: number;
  /** Takeovers of one import before it fails for good; default 3. */
  maxAttempts?: number;
  /** How often the job loop looks for imports and tasks to run; default 1000 ms. */
  pollIntervalMs?: number;
  /** Run the contacts migrations at start (embedded mode, tests); distributed mode runs them in a Job. Default true. */
  migrationsRun?: boolean;
  hooks?: ImportHooks;
  /**
   * Chunks of a campaign audience snapshot published and not yet acknowledged, at most (docs/decisions/0140): more let
   * the requester store several at once; memory holds about 2 MB a chunk. Default AUDIENCE_CHUNKS_IN_FLIGHT (3).
   */
  audienceChunksInFlight?: number;
}

export interface ResolvedContactsOptions {
  storageDir: string;
  maxUploadBytes: number;
  workers: number;
  batchSize: number;
  leaseSeconds: number;
  maxAttempts: number;
  pollIntervalMs: number;
  migrationsRun: boolean;
  hooks: ImportHooks;
  audienceChunksInFlight: number;
}

/**
 * Chunks of a `copy` audience snapshot published and not yet acknowledged by the bus, at most, by default
 * (docs/decisions/0140): the reader reads the next chunk while the requester stores the previous one, and memory holds
 * these chunks and the one being cut whatever the audience's size. On the in-memory bus a publish is acknowledged once
 * the chunk was handled.
 */
export const AUDIENCE_CHUNKS_IN_FLIGHT = 3;

export const CONTACTS_OPTIONS = Symbol('CONTACTS_OPTIONS');
export const CONTACTS_CONNECTION = 'contacts';
export const CONTACTS_SCHEMA = 'contacts';

function positive(name: string, v: number | undefined, def: number): number {
  const n = v ?? def;
  if (!Number.isInteger(n) || n <= 0) throw new Error(`ContactsModule: ${name} must be a positive integer (got ${String(v)})`);
  return n;
}

export function resolveContactsOptions(o: ContactsModuleOptions, dataDir: string | undefined): ResolvedContactsOptions {
  return {
    storageDir: path.resolve(o.storageDir ?? (dataDir ? path.join(dataDir, 'contacts') : path.join(os.tmpdir(), 'switchboard-contacts'))),
    maxUploadBytes: positive('maxUploadBytes', o.maxUploadBytes, 100 * 1024 * 1024),
    workers: positive('workers', o.workers, defaultWorkerCount()),
    batchSize: positive('batchSize', o.batchSize, 10_000),
    leaseSeconds: positive('leaseSeconds', o.leaseSeconds, 30),
    maxAttempts: positive('maxAttempts', o.maxAttempts, 3),
    pollIntervalMs: positive('pollIntervalMs', o.pollIntervalMs, 1000),
    migrationsRun: o.migrationsRun ?? true,
    hooks: o.hooks ?? {},
    audienceChunksInFlight: positive('audienceChunksInFlight', o.audienceChunksInFlight, AUDIENCE_CHUNKS_IN_FLIGHT),
  };
}
