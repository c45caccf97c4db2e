import { Clock, SystemClock } from './clock';

/** Retries after a failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about a day in all), each +-10 % jitter. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

export interface WebhooksModuleOptions {
  /** Seals the webhooks' signing secrets at rest (AES-256-GCM). At least 16 characters; the same on every replica. */
  secret: string;
  /**
   * Lets deliveries reach loopback receivers (127.0.0.0/8, ::1): embedded mode and tests only. Production refuses
   * them like every other private address. Default false.
   */
  allowLoopback?: boolean;
  /** Destination ports a webhook URL may use; 'any' for every port. Default 80, 443, 8080, 8443. */
  allowedPorts?: readonly number[] | 'any';
  /** DNS servers to resolve webhook hosts with (`host` or `host:port`); default: the system resolver. */
  dnsServers?: readonly string[];
  /** A delivery attempt (connect, send, answer) gives up after this long: E-CONNECTION_TIMEOUT. Default 10 000 ms. */
  timeoutMs?: number;
  /** Response bodies are read up to this many bytes (the rest is dropped). Default 16 384. */
  maxResponseBytes?: number;
  /** Delays before each retry; its length is the number of retries. */
  retryScheduleMs?: readonly number[];
  /** A webhook whose deliveries have failed for this long without a success is disabled. Default 5 days. */
  disableAfterMs?: number;
  /** Deliveries sent at the same time by one process. Default 64. */
  concurrency?: number;
  /** Requests in flight to one destination host, per process. Default 8. */
  perHostConcurrency?: number;
  /** Deliveries of one webhook in flight at a time (so one slow URL cannot take the whole pool). Default 4. */
  perWebhookConcurrency?: number;
  /**
   * Requests in flight on one keep-alive connection (HTTP/1.1 pipelining, docs/decisions/0069); a host gets
   * perHostConcurrency / pipelining connections. Default 1: one request at a time per connection.
   */
  pipelining?: number;
  /** How often the delivery worker looks for due work; 0 turns the loop off (tests call `runOnce`). Default 250 ms. */
  pollMs?: number;
  /** How long the signing secret replaced by a rotation still signs deliveries beside the new one. Default 24 h. */
  secretOverlapMs?: number;
  /** send_bulk: events gathered into one request, at most this many. Default 100. */
  bulkMaxEvents?: number;
  /** send_bulk: a batch goes out when it is full or its first event has waited this long. Default 1000 ms. */
  bulkWaitMs?: number;
  /** Run the migrations when the module starts (embedded mode, tests). Default true. */
  migrationsRun?: boolean;
  clock?: Clock;
  /** Jitter source, [0, 1); tests fix it. */
  random?: () => number;
}

export interface ResolvedWebhooksOptions {
  secret: string;
  allowLoopback: boolean;
  allowedPorts: readonly number[] | 'any';
  dnsServers: readonly string[];
  timeoutMs: number;
  maxResponseBytes: number;
  retryScheduleMs: readonly number[];
  disableAfterMs: number;
  concurrency: number;
  perHostConcurrency: number;
  perWebhookConcurrency: number;
  pipelining: number;
  pollMs: number;
  secretOverlapMs: number;
  bulkMaxEvents: number;
  bulkWaitMs: number;
  migrationsRun: boolean;
  random: () => number;
}

export const WEBHOOKS_OPTIONS = Symbol('WEBHOOKS_OPTIONS');
export const WEBHOOKS_CONNECTION = 'webhooks';
export const WEBHOOKS_SCHEMA = 'webhooks';

function int(name: string, v: number | undefined, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = v ?? def;
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`WebhooksModule: ${name} must be an integer from ${min} to ${max} (got ${String(v)})`);
  return n;
}

export function resolveWebhooksOptions(o: WebhooksModuleOptions): ResolvedWebhooksOptions {
  if (!o.secret || o.secret.length < 16) throw new Error('WebhooksModule: secret must be at least 16 characters');
  const ports = o.allowedPorts ?? [80, 443, 8080, 8443];
  if (ports !== 'any' && !ports.every((p) => Number.isInteger(p) && p > 0 && p < 65536)) throw new Error('WebhooksModule: allowedPorts are ports from 1 to 65535');
  const schedule = o.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
  if (!schedule.every((d) => Number.isInteger(d) && d >= 0)) throw new Error('WebhooksModule: retryScheduleMs are non-negative integers');
  const timeoutMs = int('timeoutMs', o.timeoutMs, 10_000, 10);
  return {
    secret: o.secret,
    allowLoopback: o.allowLoopback ?? false,
    allowedPorts: ports,
    dnsServers: o.dnsServers ?? [],
    timeoutMs,
    maxResponseBytes: int('maxResponseBytes', o.maxResponseBytes, 16_384, 0),
    retryScheduleMs: schedule,
    disableAfterMs: int('disableAfterMs', o.disableAfterMs, 5 * 86_400_000, 0),
    concurrency: int('concurrency', o.concurrency, 64, 1, 4096),
    perHostConcurrency: int('perHostConcurrency', o.perHostConcurrency, 8, 1, 4096),
    perWebhookConcurrency: int('perWebhookConcurrency', o.perWebhookConcurrency, 4, 1, 4096),
    pipelining: int('pipelining', o.pipelining, 1, 1, 64),
    pollMs: int('pollMs', o.pollMs, 250, 0),
    secretOverlapMs: int('secretOverlapMs', o.secretOverlapMs, 86_400_000, 0),
    bulkMaxEvents: int('bulkMaxEvents', o.bulkMaxEvents, 100, 1, 10_000),
    bulkWaitMs: int('bulkWaitMs', o.bulkWaitMs, 1000, 0),
    migrationsRun: o.migrationsRun ?? true,
    random: o.random ?? Math.random,
  };
}

export function createClock(o: WebhooksModuleOptions): Clock {
  return o.clock ?? new SystemClock();
}
