import { deadLetterTopic, flattenStatusBatches, isStatusBatch, statusChangesOf, type EventEnvelope } from '@switchboard/contracts';
import type { BatchEventHandler, DeadLetter, DeliveryContext, EventHandler, OutgoingEvent, SubscribeOptions } from './event-bus';
import { isInfrastructureError } from './failures';
import { BusMetrics, observeDelivery } from '../metrics/metrics';
import { tracingEnabled, withConsumerSpan } from '../tracing/tracing';

// Delivery rules shared by both drivers, so embedded and distributed mode retry and dead-letter alike.

export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_RETRY_BACKOFF_MS = 100;
/** Longest wait between two attempts, whatever the failure. */
export const DEFAULT_MAX_BACKOFF_MS = 5000;

/** Header names: Kafka record headers, and the same map in memory. */
export const EventHeaders = {
  id: 'id',
  type: 'type',
  version: 'version',
  error: 'error',
  attempts: 'attempts',
  originalTopic: 'originalTopic',
  group: 'group',
  failedAt: 'failedAt',
  traceparent: 'traceparent',
} as const;

export type Headers = Record<string, string>;

export interface RetryPolicy {
  maxRetries: number;
  retryBackoffMs: number;
  maxBackoffMs: number;
}

export function retryPolicy(options: Pick<SubscribeOptions, 'maxRetries' | 'retryBackoffMs' | 'maxBackoffMs'>): RetryPolicy {
  const retryBackoffMs = Math.max(0, options.retryBackoffMs ?? DEFAULT_RETRY_BACKOFF_MS);
  return {
    maxRetries: Math.max(0, options.maxRetries ?? DEFAULT_MAX_RETRIES),
    retryBackoffMs,
    maxBackoffMs: Math.max(retryBackoffMs, options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS),
  };
}

/**
 * The wait before retry number `n` (1-based): `retryBackoffMs * 2^(n-1)`, capped at `maxBackoffMs`, then jittered
 * down by up to half so that many consumers paused by one outage do not all come back in the same instant.
 */
export function backoffMs(policy: RetryPolicy, n: number, random: () => number = Math.random): number {
  const capped = Math.min(policy.maxBackoffMs, policy.retryBackoffMs * 2 ** Math.min(30, Math.max(0, n - 1)));
  return Math.round(capped * (0.5 + random() * 0.5));
}

/**
 * Thrown out of a delivery that failed while the bus was stopping (or the partition was taken away): the event is
 * left unacknowledged, to be delivered again after the restart or by the partition's next owner.
 */
export class DeliveryAborted extends Error {
  constructor(cause: unknown) {
    super(`delivery abandoned while stopping: ${describeError(cause)}`, { cause });
    this.name = 'DeliveryAborted';
  }
}

/** `SubscribeOptions.concurrency`, checked: a positive integer, 1 when absent. */
export function concurrencyOf(options: SubscribeOptions): number {
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new Error(`concurrency of group "${options.group}" must be a positive integer, got ${String(options.concurrency)}`);
  }
  return concurrency;
}

/**
 * Runs every task of a chunk to its end, then rethrows the first failure: a chunk is acknowledged as a whole, and
 * leaving on the first error would let its other handlers run on after the caller gave the chunk up.
 */
export async function settleAll(tasks: Array<Promise<void>>): Promise<void> {
  if (tasks.length === 1) return tasks[0];
  const results = await Promise.allSettled(tasks);
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
}

export const isDeadLetterTopic = (topic: string): boolean => topic.endsWith(deadLetterTopic(''));

/** The envelope as it travels: `topic` is routing, not content. */
export function toEnvelope(event: OutgoingEvent): EventEnvelope {
  const { topic: _topic, ...envelope } = event;
  return envelope;
}

/** Deeper than this, jsonCopy leaves it to JSON itself (which also refuses a cycle). */
const JSON_COPY_DEPTH = 64;
class TooDeep extends Error {}

/**
 * What `JSON.parse(JSON.stringify(value))` gives, without the text in between: Dates (anything with toJSON) become
 * what toJSON says, undefined, functions and symbols are dropped from objects and null in arrays, NaN and Infinity
 * are null, a BigInt throws as JSON.stringify does, a cycle too. The in-memory bus delivers such a copy, so embedded
 * mode sees what Kafka's JSON records carry (docs/decisions/0077), at a fraction of the round trip's cost.
 */
export function jsonCopy<T>(value: T): T {
  try {
    return copyJson(value, '', 0, false) as T;
  } catch (error) {
    if (!(error instanceof TooDeep)) throw error;
    return JSON.parse(JSON.stringify(value)) as T;
  }
}

/**
 * jsonCopy, with every object and array of the copy frozen in the same walk: the in-memory bus makes one per publish
 * and shares it between the groups (docs/decisions/0142), so a handler that writes into an event throws a TypeError
 * (strict mode) instead of changing what another group, a retry or a dead letter sees.
 */
export function frozenJsonCopy<T>(value: T): T {
  try {
    return copyJson(value, '', 0, true) as T;
  } catch (error) {
    if (!(error instanceof TooDeep)) throw error;
    return deepFreeze(JSON.parse(JSON.stringify(value))) as T;
  }
}

/**
 * frozenJsonCopy for data its owner hands over (`PublishOptions.handOver`: the outbox relay's events, parsed from their
 * rows' text a moment before): when `value` is already what a JSON round trip gives (plain objects and arrays of
 * strings, finite numbers other than -0, booleans and null; no toJSON, no undefined, no hole, at most 64 deep), it is
 * frozen where it is and returned, not copied; otherwise a frozen copy is returned, as frozenJsonCopy makes it. Either
 * way no handler can change what another sees. Own properties that a JSON round trip drops without reading them as
 * data (non-enumerable ones, symbol keys, getters, an array's non-index properties) are not looked for: what
 * JSON.parse and object literals make has none.
 */
export function frozenJsonHandedOver<T>(value: T): T {
  return freezeIfJson(value, 0) ? value : frozenJsonCopy(value);
}

/** Whether `v` is JSON data as JSON.parse makes it; freezes its objects and arrays on the way (both only when it is). */
function freezeIfJson(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0);
    case 'object':
      break;
    default:
      return false;
  }
  if (v === null) return true;
  if (depth > JSON_COPY_DEPTH) return false;
  if (Object.isFrozen(v)) return isFrozenJson(v, depth);
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto === Array.prototype) {
    const a = v as unknown[];
    for (let i = 0; i < a.length; i++) if (!(i in a) || !freezeIfJson(a[i], depth + 1)) return false;
  } else if (proto === Object.prototype) {
    const o = v as Record<string, unknown>;
    if (typeof o.toJSON === 'function') return false;
    for (const k in o) {
      if (!Object.prototype.hasOwnProperty.call(o, k)) return false; // an enumerable inherited property: copy it as JSON would read it
      if (!freezeIfJson(o[k], depth + 1)) return false;
    }
  } else return false;
  Object.freeze(v);
  return true;
}

/** freezeIfJson of an already frozen object or array: its parts must be JSON data and frozen too (checked, not frozen). */
function isFrozenJson(v: object, depth: number): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto === Array.prototype) {
    const a = v as unknown[];
    for (let i = 0; i < a.length; i++) if (!(i in a) || !frozenPart(a[i], depth + 1)) return false;
    return true;
  }
  if (proto !== Object.prototype) return false;
  const o = v as Record<string, unknown>;
  if (typeof o.toJSON === 'function') return false;
  for (const k in o) if (!Object.prototype.hasOwnProperty.call(o, k) || !frozenPart(o[k], depth + 1)) return false;
  return true;
}

function frozenPart(v: unknown, depth: number): boolean {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) return false;
  return freezeIfJson(v, depth);
}

function deepFreeze(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  return Object.freeze(v);
}

function copyJson(v: unknown, key: string, depth: number, freeze: boolean): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      break;
    default:
      return undefined; // undefined, a function, a symbol
  }
  if (v === null) return null;
  if (depth > JSON_COPY_DEPTH) throw new TooDeep();
  const o = v as Record<string, unknown> & { toJSON?: (key: string) => unknown };
  if (typeof o.toJSON === 'function') return copyJson(o.toJSON(key), key, depth + 1, freeze);
  if (o instanceof Number || o instanceof String || o instanceof Boolean) return copyJson(o.valueOf(), key, depth + 1, freeze);
  if (Array.isArray(o)) {
    const out = new Array<unknown>(o.length);
    for (let i = 0; i < o.length; i++) {
      const c = copyJson(o[i], String(i), depth + 1, freeze);
      out[i] = c === undefined ? null : c;
    }
    return freeze ? Object.freeze(out) : out;
  }
  const out: Record<string, unknown> = {};
  for (const k in o) {
    if (!Object.prototype.hasOwnProperty.call(o, k)) continue;
    const c = copyJson(o[k], k, depth + 1, freeze);
    if (c === undefined) continue;
    if (k === '__proto__') Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
    else out[k] = c;
  }
  return freeze ? Object.freeze(out) : out;
}

export function envelopeHeaders(envelope: EventEnvelope): Headers {
  const headers: Headers = { [EventHeaders.id]: envelope.id, [EventHeaders.type]: envelope.type, [EventHeaders.version]: String(envelope.version) };
  // W3C trace context as a record header too, for Kafka tooling; consumers read the envelope's field.
  if (envelope.traceparent) headers[EventHeaders.traceparent] = envelope.traceparent;
  return headers;
}

export function deadLetterHeaders(deadLetter: DeadLetter): Headers {
  return {
    [EventHeaders.error]: deadLetter.error,
    [EventHeaders.attempts]: String(deadLetter.attempts),
    [EventHeaders.originalTopic]: deadLetter.originalTopic,
    [EventHeaders.group]: deadLetter.group,
    [EventHeaders.failedAt]: deadLetter.failedAt,
  };
}

export function readDeadLetter(headers: Partial<Headers>): DeadLetter | undefined {
  const originalTopic = headers[EventHeaders.originalTopic];
  if (originalTopic === undefined) return undefined;
  return {
    originalTopic,
    error: headers[EventHeaders.error] ?? '',
    attempts: Number(headers[EventHeaders.attempts] ?? 0),
    group: headers[EventHeaders.group] ?? '',
    failedAt: headers[EventHeaders.failedAt] ?? '',
  };
}

const MAX_ERROR_LENGTH = 2000;

export function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}...` : text;
}

export interface HandlerFailure {
  error: string;
  attempts: number;
}

export interface DeliveryHooks {
  /** False once the bus stops or the driver gave the partition up: a failing delivery is then abandoned. */
  running: () => boolean;
  /** Called on each infrastructure failure with the number of such failures so far (for a log line). */
  onOutage?: (error: unknown, failures: number) => void;
  /** Called when the handler succeeds after infrastructure failures. */
  onRecovered?: (failures: number) => void;
}

/**
 * Runs the handler until it succeeds, waiting `backoffMs` between attempts. `wait` is the driver's sleep (Kafka
 * heartbeats while it waits).
 *
 * - An infrastructure failure (isInfrastructureError: the database or broker is away) is retried without end while
 *   the bus runs: the caller holds the partition or lane meanwhile, so nothing behind this event overtakes it.
 * - Any other failure counts: after `maxRetries` retries the last one is returned, for the driver to dead-letter.
 *
 * Returns undefined on success. Throws DeliveryAborted when a failed delivery meets a stopped bus, and whatever
 * `wait` throws (a rebalance): the event is then left unacknowledged.
 */
export async function handleWithRetries(
  handler: EventHandler,
  envelope: EventEnvelope,
  context: Omit<DeliveryContext, 'attempt'>,
  policy: RetryPolicy,
  wait: (ms: number) => Promise<void>,
  hooks: DeliveryHooks = { running: () => true },
): Promise<HandlerFailure | undefined> {
  let outages = 0;
  let failures = 0;
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    let delay: number;
    try {
      const delivery = { ...context, attempt };
      if (tracingEnabled()) await withConsumerSpan(envelope, context.group, context.topic, () => handler(envelope, delivery));
      else await handler(envelope, delivery);
      if (outages > 0) hooks.onRecovered?.(outages);
      observeDelivery(context.group, envelope.type, envelope.occurredAt, started, 'ok');
      return undefined;
    } catch (error) {
      if (isInfrastructureError(error)) {
        outages++;
        if (!hooks.running()) throw new DeliveryAborted(error);
        hooks.onOutage?.(error, outages);
        BusMetrics.outageRetries().inc({ group: context.group });
        delay = backoffMs(policy, outages);
      } else {
        failures++;
        if (failures > policy.maxRetries) {
          observeDelivery(context.group, envelope.type, envelope.occurredAt, started, 'dead_lettered');
          return { error: describeError(error), attempts: attempt };
        }
        if (!hooks.running()) throw new DeliveryAborted(error);
        delay = backoffMs(policy, failures);
      }
    }
    await wait(delay);
  }
}

/**
 * Hands a chunk to a group's batch handler (`SubscribeOptions.batchHandler`). An infrastructure failure is retried
 * without end while the bus runs (the chunk, and its partition or lane, held: pause and retry, never a dead letter);
 * true once the handler succeeded. False when it failed otherwise: the caller then delivers each event to the group's
 * `handler` (handleWithRetries), so a bad event is retried and dead-lettered alone. Throws DeliveryAborted when an
 * outage meets a stopped bus, and whatever `wait` throws (a rebalance): the chunk is then left unacknowledged.
 */
export async function handleChunkWithRetries(
  handler: BatchEventHandler,
  envelopes: EventEnvelope[],
  context: { topic: string; group: string },
  policy: RetryPolicy,
  wait: (ms: number) => Promise<void>,
  hooks: DeliveryHooks = { running: () => true },
): Promise<boolean> {
  const started = Date.now();
  for (let outages = 0; ; ) {
    try {
      await handler(envelopes, context);
      if (outages > 0) hooks.onRecovered?.(outages);
      // one observation per chunk and type: the first event's enqueue time stands for the chunk's
      observeChunk(context.group, envelopes, started);
      return true;
    } catch (error) {
      if (!isInfrastructureError(error)) return false;
      outages++;
      if (!hooks.running()) throw new DeliveryAborted(error);
      hooks.onOutage?.(error, outages);
      BusMetrics.outageRetries().inc({ group: context.group });
      await wait(backoffMs(policy, outages));
    }
  }
}

/** The delivery metrics of a chunk handled at once: each event counted, the handling time per type observed once. */
function observeChunk(group: string, envelopes: EventEnvelope[], started: number): void {
  const seen = new Map<string, number>();
  for (const e of envelopes) seen.set(e.type, (seen.get(e.type) ?? 0) + 1);
  for (const [type, n] of seen) {
    const first = envelopes.find((e) => e.type === type) as EventEnvelope;
    observeDelivery(group, type, first.occurredAt, started, 'ok', n);
  }
}

/**
 * Runs `work` (a dead-letter write, say) until it succeeds, retrying infrastructure failures without end while
 * `running()`; other failures are thrown at once.
 */
export async function retryWhileDown<T>(work: () => Promise<T>, policy: RetryPolicy, wait: (ms: number) => Promise<void>, hooks: DeliveryHooks): Promise<T> {
  for (let outages = 1; ; outages++) {
    try {
      return await work();
    } catch (error) {
      if (!isInfrastructureError(error)) throw error;
      if (!hooks.running()) throw new DeliveryAborted(error);
      hooks.onOutage?.(error, outages);
      await wait(backoffMs(policy, outages));
    }
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A batch handler (`SubscribeOptions.batchHandler`) that runs `handler` on every event of a chunk at once and waits for
 * all of them, then fails with the first failure, if any. For groups whose handler already joins a group commit or
 * skips most events: the chunk is one call to the bus's delivery (one retry loop, one observation a type) instead of one
 * each, with its promise, context object and metrics (docs/decisions/0160). A failure fails the chunk: an outage retries
 * the whole chunk, anything else hands each event to `handler` alone, with its own retries and dead letter, so the
 * handler must be idempotent (every consumer is: at-least-once).
 */
export function eachAtOnce(handler: (event: EventEnvelope) => Promise<void> | undefined): BatchEventHandler {
  return async (events, context) => {
    const running: Array<Promise<void>> = [];
    // with tracing on, each handled event keeps its consumer span, as a delivery one by one has
    const traced = tracingEnabled();
    for (const e of events) {
      const r = traced ? withConsumerSpan(e, context.group, context.topic, async () => handler(e)) : handler(e);
      if (r) running.push(r);
    }
    if (running.length) await settleAll(running);
  };
}

/**
 * A subscription's handlers taking dispatch's batches of status changes (`dispatch.message.statuses_changed`,
 * docs/decisions/0173) as well as the per-message form: a batch is handed on as the per-message events it stands for
 * (`statusChangesOf`: each with its own id, account and trace), in the same call, so the group's group commit takes
 * them together. One at a time (`handler`: a dead letter replayed, or a chunk that failed for something other than an
 * outage), a batch's events run at once and the batch fails with the first failure, for its retries and dead letter as
 * one event. An outage fails it like any other event: the bus retries it without end. Every other event goes through
 * as it is.
 */
export function withStatusBatches(
  handler: EventHandler,
  batchHandler?: BatchEventHandler,
  /** In a chunk, only a batch's items whose data this keeps are handed on (the rest are skipped without an envelope). */
  keep?: (data: unknown) => boolean,
): { handler: EventHandler; batchHandler?: BatchEventHandler } {
  return {
    handler: (e, context) => (isStatusBatch(e) ? settleAll(statusChangesOf(e).map((one) => handler(one, context))) : handler(e, context)),
    batchHandler: batchHandler && ((events, context) => batchHandler(flattenStatusBatches(events, keep), context)),
  };
}
