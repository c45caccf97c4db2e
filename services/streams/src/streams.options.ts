import { Clock, SystemClock } from './clock';

export interface StreamsModuleOptions {
  /**
   * Seals stream tokens and provider tokens (the console shows them again) and keys OTP code hashes. At least 16
   * characters; changing it invalidates every stored token and pending OTP code.
   */
  secret: string;
  /**
   * Seals provider secrets for dispatch (`PROVIDER_SECRETS_KEY`, the same value in dispatch; at least 16 characters).
   * Default: derived from `secret` (tests and setups where one process runs both).
   */
  providerSecretsKey?: string;
  /** Base URL customers call the stream API at, shown in code snippets. Default `http://localhost:3000`. */
  publicApiUrl?: string;
  /** WhatsApp Cloud API (Graph) base URL and version. Defaults `https://graph.facebook.com`, `v21.0`. */
  whatsappApiBaseUrl?: string;
  whatsappApiVersion?: string;
  /** Telegram Bot API base URL. Default `https://api.telegram.org`. */
  telegramApiBaseUrl?: string;
  /** Provider HTTP calls give up after this long. Default 10 000 ms. */
  providerTimeoutMs?: number;
  /** Same stream, destination and text within this window is a duplicate (0x19). Default 300 s; 0 turns it off. */
  duplicateWindowSeconds?: number;
  /** How long an Idempotency-Key answer is replayed. Default 86 400 s (24 h). */
  idempotencyTtlSeconds?: number;
  /** Rows the balance of an account is split over; keep it above the send pool size (docs/decisions/0014-streams.md). Default 32. */
  balanceSlots?: number;
  /** Price per segment for a country without a price; null (default) refuses such sends with 0x17. */
  defaultPriceMicros?: number | null;
  /** How long stream, customer, sender and keyword lookups are cached per process. Default 2000 ms. */
  cacheTtlMs?: number;
  /** Invalid stream tokens from one IP within a minute before it is banned (0x16). Default 30. */
  invalidTokenLimit?: number;
  /** How long a banned IP stays banned. Default 900 s. */
  banSeconds?: number;
  /** Connections of the send path's own pool. Default 16. */
  sendPoolSize?: number;
  /** Most sends written by one group-commit statement (docs/decisions/0016-stream-api-group-commit.md). Default 500. */
  sendBatchMax?: number;
  /** Group-commit batches written at the same time. Default 2. */
  sendBatchesInFlight?: number;
  /**
   * The stream API's TPS buckets in PostgreSQL, shared by every streams replica (docs/decisions/0067), instead of one
   * per process. Default false (embedded mode: one process); the standalone process turns it on (`STREAMS_SHARED_TPS`).
   */
  sharedTps?: boolean;
  /**
   * A send batch's charges as one `streams.messages.charged` event per account (up to 500 items) instead of a
   * `streams.message.charged` each (docs/decisions/0178; `STREAMS_CHARGE_BATCHES`). Default true: the accounts service
   * reads the batch form from 0178 on; while an older accounts process still runs, set it false.
   */
  chargeBatches?: boolean;
  /**
   * A send batch's accepted events as one `streams.messages.accepted` event per account (up to 500 items) instead of a
   * `streams.message.accepted` each (docs/decisions/0181; `STREAMS_ACCEPT_BATCHES`). Default false: turn it on only once
   * every streams process (an older relay cannot read the row) and every dispatch, accounts and stats process runs 0181.
   */
  acceptBatches?: boolean;
  /**
   * A send batch's events written compactly (docs/decisions/0210; `STREAMS_COMPACT_SEND_ROWS`): `accept_messages_compact`
   * stores node's text of the batch's events and the statement's decisions, and the relay builds the same events from
   * it. Default true. An older streams relay cannot read such a row: set it false while an older streams process runs,
   * and before rolling streams back below 0210 (then wait until the outbox has no unpublished `$streams.sends.compact` row).
   */
  compactSendRows?: boolean;
  /** Run the migrations when the module starts (embedded mode, tests). Default true. */
  migrationsRun?: boolean;
  /** How often statistics ticks go to `rt.<account>.streams`. Default 1000 ms. */
  statsTickMs?: number;
  /**
   * The sweeper of messages still `accepted` that dispatch may never have got (docs/decisions/0087), in processes with
   * the schedulers role: streams asks dispatch about them and publishes again the ones dispatch does not have.
   */
  undispatched?: {
    /** A message still `accepted` this long after acceptance (or after it was last asked about) is asked about. Default 900 000 ms (15 minutes). */
    afterMs?: number;
    /** How often the sweep runs. Default 60 000 ms. */
    intervalMs?: number;
    /** Messages per request to dispatch (at most 1000). Default 1000. */
    batch?: number;
    /** Requests per sweep, at most: the rate bound (batch × requests per interval). Default 10. */
    requestsPerSweep?: number;
    /** Messages a sweep reads in one transaction above its floor (docs/decisions/0204). Default 10 000. */
    scanRows?: number;
  };
  clock?: Clock;
}

export interface ResolvedStreamsOptions {
  secret: string;
  providerSecretsKey: string;
  publicApiUrl: string;
  whatsappApiBaseUrl: string;
  whatsappApiVersion: string;
  telegramApiBaseUrl: string;
  providerTimeoutMs: number;
  duplicateWindowSeconds: number;
  idempotencyTtlSeconds: number;
  balanceSlots: number;
  defaultPriceMicros: number | null;
  cacheTtlMs: number;
  invalidTokenLimit: number;
  banSeconds: number;
  sendPoolSize: number;
  sendBatchMax: number;
  sendBatchesInFlight: number;
  sharedTps: boolean;
  chargeBatches: boolean;
  acceptBatches: boolean;
  compactSendRows: boolean;
  migrationsRun: boolean;
  statsTickMs: number;
  undispatched: { afterMs: number; intervalMs: number; batch: number; requestsPerSweep: number; scanRows: number };
}

export const STREAMS_OPTIONS = Symbol('STREAMS_OPTIONS');
export const STREAMS_CONNECTION = 'streams';
export const STREAMS_SCHEMA = 'streams';

function int(name: string, v: number | undefined, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = v ?? def;
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`StreamsModule: ${name} must be an integer from ${min} to ${max} (got ${String(v)})`);
  return n;
}

const trimSlash = (u: string): string => u.replace(/\/+$/, '');

export function resolveStreamsOptions(o: StreamsModuleOptions): ResolvedStreamsOptions {
  if (!o.secret || o.secret.length < 16) throw new Error('StreamsModule: secret must be at least 16 characters');
  const defaultPrice = o.defaultPriceMicros ?? null;
  if (defaultPrice !== null && (!Number.isInteger(defaultPrice) || defaultPrice < 0)) throw new Error('StreamsModule: defaultPriceMicros must be a non-negative integer or null');
  return {
    secret: o.secret,
    providerSecretsKey: o.providerSecretsKey ?? `provider-secrets:${o.secret}`,
    publicApiUrl: trimSlash(o.publicApiUrl ?? 'http://localhost:3000'),
    whatsappApiBaseUrl: trimSlash(o.whatsappApiBaseUrl ?? 'https://graph.facebook.com'),
    whatsappApiVersion: o.whatsappApiVersion ?? 'v21.0',
    telegramApiBaseUrl: trimSlash(o.telegramApiBaseUrl ?? 'https://api.telegram.org'),
    providerTimeoutMs: int('providerTimeoutMs', o.providerTimeoutMs, 10_000, 100),
    duplicateWindowSeconds: int('duplicateWindowSeconds', o.duplicateWindowSeconds, 300, 0),
    idempotencyTtlSeconds: int('idempotencyTtlSeconds', o.idempotencyTtlSeconds, 86_400, 1),
    balanceSlots: int('balanceSlots', o.balanceSlots, 32, 1, 256),
    defaultPriceMicros: defaultPrice,
    cacheTtlMs: int('cacheTtlMs', o.cacheTtlMs, 2000, 0),
    invalidTokenLimit: int('invalidTokenLimit', o.invalidTokenLimit, 30, 1),
    banSeconds: int('banSeconds', o.banSeconds, 900, 1),
    sendPoolSize: int('sendPoolSize', o.sendPoolSize, 16, 1, 200),
    sendBatchMax: int('sendBatchMax', o.sendBatchMax, 500, 1, 5000),
    sendBatchesInFlight: int('sendBatchesInFlight', o.sendBatchesInFlight, 2, 1, 16),
    sharedTps: o.sharedTps ?? false,
    chargeBatches: o.chargeBatches ?? true,
    acceptBatches: o.acceptBatches ?? false,
    compactSendRows: o.compactSendRows ?? true,
    migrationsRun: o.migrationsRun ?? true,
    statsTickMs: int('statsTickMs', o.statsTickMs, 1000, 10),
    undispatched: {
      afterMs: int('undispatched.afterMs', o.undispatched?.afterMs, 900_000, 1000),
      intervalMs: int('undispatched.intervalMs', o.undispatched?.intervalMs, 60_000, 100),
      batch: int('undispatched.batch', o.undispatched?.batch, 1000, 1, 1000),
      requestsPerSweep: int('undispatched.requestsPerSweep', o.undispatched?.requestsPerSweep, 10, 1, 1000),
      scanRows: int('undispatched.scanRows', o.undispatched?.scanRows, 10_000, 1, 100_000),
    },
  };
}

export function createClock(o: StreamsModuleOptions): Clock {
  return o.clock ?? new SystemClock();
}
