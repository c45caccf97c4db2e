import { failoverConsumerTuning } from '@switchboard/platform';
import type { ProviderAdapter } from './adapters/provider-adapter';
import type { TelegramLoginGateway } from './adapters/telegram-private.adapter';
import type { StuckSweepOptions } from './services/stuck-sweeper.service';

export const DISPATCH_CONNECTION = 'dispatch';
export const DISPATCH_SCHEMA = 'dispatch';
export const DISPATCH_OPTIONS = Symbol('DISPATCH_OPTIONS');
/** The consumer group of `streams.message.accepted`. */
export const SENDER_GROUP = 'dispatch.sender';

/**
 * The sender group's membership settings: the platform's (`failoverConsumerTuning`, a replica joining or dying costs at
 * most 10 s of sending). Dispatch's handlers hold an event at most `ingestHoldMs`, 1 s, plus a group commit, well within
 * the 6 s a rebalance waits for a member.
 */
export const dispatchKafkaConsumerTuning = failoverConsumerTuning;

export type AdapterKind = 'smpp' | 'simulator' | 'whatsapp' | 'telegram_bot' | 'telegram_private';
export type ServiceType = 'sms' | 'whatsapp' | 'telegram' | 'telegram_private';

export interface VendorRow {
  id: string;
  name: string;
  serviceType: ServiceType;
  carrier: string;
  productName: string;
  productId: string;
  currency: string;
  active: boolean;
  adapter: AdapterKind;
  config: Record<string, unknown>;
}

/** A vendor created at start when none of that name exists, with a channel so it routes by default. */
export interface VendorSeed {
  name: string;
  serviceType: ServiceType;
  adapter: AdapterKind;
  config?: Record<string, unknown>;
  carrier?: string;
  currency?: string;
  /** The channel's routing provider (1 = first choice when no country route names vendors). Default 1. */
  routingProvider?: 1 | 2 | 3 | 4;
}

export interface DispatchModuleOptions {
  /** Run migrations on start (embedded, tests). Default true. */
  migrationsRun?: boolean;
  /** Embedded mode seeds the simulators here. */
  seedVendors?: VendorSeed[];
  /** Builds the adapter of a vendor row; return null to use the built-in one (tests inject peers this way). */
  adapterFactory?: (vendor: VendorRow) => ProviderAdapter | null;
  /** Public base URL of the API (for Telegram setWebhook), e.g. https://sms.example.com. */
  publicUrl?: string;
  /** WhatsApp Cloud API as a tech provider: webhook app secret and verify token; base URL for tests. */
  whatsapp?: { appSecret: string; verifyToken: string; accessToken?: string; baseUrl?: string; apiVersion?: string };
  /** Telegram Bot API base URL (tests) and the key webhook secrets are derived from. */
  telegram?: { baseUrl?: string; webhookSecretKey?: string };
  /**
   * Opens the provider secrets streams seals into `streams.stream.channel_configured` (`PROVIDER_SECRETS_KEY`, the same
   * value streams has). Without it a stream's own WhatsApp or Telegram token cannot be used (docs/decisions/0021).
   */
  providerSecretsKey?: string;
  /** MTProto app credentials for Telegram private streams. */
  telegramPrivate?: { apiId: number; apiHash: string };
  /** Replaces the GramJS login gateway (tests: Telegram cannot be reached offline). */
  telegramGateway?: TelegramLoginGateway;
  dispatcher?: DispatcherTuning;
  /** Default per-stream rate (messages/s); 0 = only the account and vendor limits apply. Default 0. */
  defaultStreamTps?: number;
  /** Rows per outbox relay pass. Default 1000. */
  outboxBatchSize?: number;
  /**
   * Accepted events handled at once per bus partition (lane), feeding the ingest's group commits. Events in flight
   * are partitions x this: keep that under about a second of sending (see `ingestHoldMs`). Default 128.
   */
  ingestConcurrency?: number;
  /** Realtime `rt.<acc>.messages` batches at most this often. Default 500 ms. */
  realtimeIntervalMs?: number;
  /**
   * Status changes as one `dispatch.message.statuses_changed` event per write batch instead of a
   * `dispatch.message.status_changed` each (docs/decisions/0173). Default true (0173, stop 29). Set false while any
   * consumer of dispatch's statuses still runs a release older than 0173 (it would skip the batch).
   */
  statusBatches?: boolean;
  /**
   * A write batch's events as one compact `$dispatch.lifecycle` outbox row (tables of columns: a value shared by every
   * event written once) instead of a `$packed` row of their JSON (docs/decisions/0217). Default true. Set false while a
   * dispatch process older than 0217 runs (its relay cannot read a compact row), and before rolling dispatch back below
   * 0217 (then wait until no `$dispatch.lifecycle` row is unpublished).
   */
  compactOutbox?: boolean;
  /** The stuck-message sweeper (StuckMessageSweeper): when a message is resumed or failed with a refund. */
  stuck?: StuckSweepOptions;
  /**
   * Inbound media (docs/decisions/0045, 0053, 0058): one fetch's deadline (`timeoutMs`, 30 s) and most bytes
   * (`maxBytes`, 100 MB); the background keeper's files at once (`keepConcurrency`, 2), how often it looks
   * (`keepPollMs`, 1000) and its first retry after an outage (`keepRetryMs`, 5000, doubling to 10 min); how long kept
   * bytes stay (`keepForMs`, 90 days) and the most kept bytes in total (`maxTotalBytes`, 10 GiB; the oldest go first),
   * checked every `pruneEveryMs` (60 000); `allowLoopback` lets a download URL the provider hands over be on
   * 127.0.0.1/::1 (local peers; never in production: private, link-local and metadata addresses are always refused).
   */
  inboundMedia?: InboundMediaOptions;
}

export interface InboundMediaOptions {
  timeoutMs?: number;
  maxBytes?: number;
  keepConcurrency?: number;
  keepPollMs?: number;
  keepRetryMs?: number;
  keepForMs?: number;
  maxTotalBytes?: number;
  pruneEveryMs?: number;
  allowLoopback?: boolean;
}

export interface DispatcherTuning {
  /** Messages claimed per pass. Default 500. */
  batchSize?: number;
  /** Messages handed to adapters and not yet answered, at most. Default 5000. */
  maxInFlight?: number;
  /** Poll interval when idle (deferred messages become due). Default 200 ms. */
  idleMs?: number;
  /** Attempts on retryable failures before sent_failed. Default 5. */
  maxAttempts?: number;
  /** First retry delay, doubled per attempt. Default 1000 ms. */
  retryBaseMs?: number;
  /** Wait before the single flagged resend of an unanswered submit. Default 60 000 ms. */
  unknownResendAfterMs?: number;
  /** Instance heartbeat. Default 2000 ms. */
  heartbeatMs?: number;
  /** An instance silent this long is dead: its claimed messages are resent flagged. Default 10 000 ms. */
  staleAfterMs?: number;
  /** A sent message with no final receipt after this long becomes undelivered (EXPIRED). Default 72 h. */
  receiptTimeoutMs?: number;
  /**
   * How often dispatch asks carriers (SMPP query_sm) about sent messages whose receipt is past the vendor's
   * `receiptOverdueMs`; 0: never. Default 60 000 ms.
   */
  queryIntervalMs?: number;
  /** A message asked about and still without a final answer is asked again after this long. Default 3 600 000 ms. */
  queryRepeatMs?: number;
  /** Messages asked about per round, at most. Default 500. */
  queryBatch?: number;
  /** Results and receipts written per transaction, at most. Default 2000. */
  writeBatch?: number;
  /**
   * How long new messages may wait in memory (their events unacknowledged) for the adapters to have room, so they
   * go out directly rather than through the queue table. Past it they are queued. It should exceed the time the
   * bus's in-flight events take to send at full speed (a few thousand at several thousand a second), or a saturated
   * dispatcher queues everything. Default 1000 ms.
   */
  ingestHoldMs?: number;
  /**
   * How often a replica renews its shares of the account and stream rates it sends under, in PostgreSQL, so that
   * every replica together keeps each rate (docs/decisions/0047-limits-across-replicas.md); 0: each process applies
   * the whole rates on its own (embedded mode, one process). Default 500 ms.
   */
  rateShareMs?: number;
  /**
   * With rateShareMs > 0: one replica at a time owns each account's pacing (its TPS and its streams' at the whole
   * rates, a lease in `dispatch.rate_share`) and the others hand it the account's messages through the queue
   * (docs/decisions/0094); false: every replica paces at its share of each rate (0047). Default true.
   */
  rateOwnership?: boolean;
}

export interface ResolvedDispatcherTuning {
  batchSize: number;
  maxInFlight: number;
  idleMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  unknownResendAfterMs: number;
  heartbeatMs: number;
  staleAfterMs: number;
  receiptTimeoutMs: number;
  queryIntervalMs: number;
  queryRepeatMs: number;
  queryBatch: number;
  writeBatch: number;
  ingestHoldMs: number;
  rateShareMs: number;
  rateOwnership: boolean;
}

export interface ResolvedDispatchOptions extends Omit<DispatchModuleOptions, 'dispatcher'> {
  migrationsRun: boolean;
  dispatcher: ResolvedDispatcherTuning;
  defaultStreamTps: number;
  outboxBatchSize: number;
  realtimeIntervalMs: number;
  ingestConcurrency: number;
  statusBatches: boolean;
  compactOutbox: boolean;
}

export function resolveDispatchOptions(o: DispatchModuleOptions = {}): ResolvedDispatchOptions {
  const d = o.dispatcher ?? {};
  return {
    ...o,
    migrationsRun: o.migrationsRun ?? true,
    defaultStreamTps: o.defaultStreamTps ?? 0,
    outboxBatchSize: o.outboxBatchSize ?? 1000,
    ingestConcurrency: Math.max(1, o.ingestConcurrency ?? 128),
    realtimeIntervalMs: o.realtimeIntervalMs ?? 500,
    statusBatches: o.statusBatches ?? true,
    compactOutbox: o.compactOutbox ?? true,
    dispatcher: {
      batchSize: d.batchSize ?? 500,
      maxInFlight: d.maxInFlight ?? 5000,
      idleMs: d.idleMs ?? 200,
      maxAttempts: d.maxAttempts ?? 5,
      retryBaseMs: d.retryBaseMs ?? 1000,
      unknownResendAfterMs: d.unknownResendAfterMs ?? 60_000,
      heartbeatMs: d.heartbeatMs ?? 2000,
      staleAfterMs: d.staleAfterMs ?? 10_000,
      receiptTimeoutMs: d.receiptTimeoutMs ?? 72 * 3600_000,
      queryIntervalMs: d.queryIntervalMs ?? 60_000,
      queryRepeatMs: d.queryRepeatMs ?? 3_600_000,
      queryBatch: d.queryBatch ?? 500,
      writeBatch: d.writeBatch ?? 2000,
      ingestHoldMs: d.ingestHoldMs ?? 1000,
      rateShareMs: d.rateShareMs ?? 500,
      rateOwnership: d.rateOwnership ?? true,
    },
  };
}
