import { deadLetterTopic, type EventEnvelope } from '@switchboard/contracts';
import type { DeadLetter, DeliveryContext, EventHandler, OutgoingEvent, SubscribeOptions } from './event-bus';

// Delivery rules shared by both drivers, so embedded and distributed mode retry and dead-letter alike.

export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_RETRY_BACKOFF_MS = 100;

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
} as const;

export type Headers = Record<string, string>;

export interface RetryPolicy {
  maxRetries: number;
  retryBackoffMs: number;
}

export function retryPolicy(options: SubscribeOptions): RetryPolicy {
  return {
    maxRetries: Math.max(0, options.maxRetries ?? DEFAULT_MAX_RETRIES),
    retryBackoffMs: Math.max(0, options.retryBackoffMs ?? DEFAULT_RETRY_BACKOFF_MS),
  };
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

export function envelopeHeaders(envelope: EventEnvelope): Headers {
  return { [EventHeaders.id]: envelope.id, [EventHeaders.type]: envelope.type, [EventHeaders.version]: String(envelope.version) };
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

/**
 * Runs the handler until it succeeds or `maxRetries` retries are spent, waiting `retryBackoffMs * 2^n` between
 * attempts. `wait` is the driver's sleep (Kafka heartbeats while it waits). Returns the last failure, or
 * undefined on success. Errors thrown by `wait` propagate: the event is then left unacknowledged.
 */
export async function handleWithRetries(
  handler: EventHandler,
  envelope: EventEnvelope,
  context: Omit<DeliveryContext, 'attempt'>,
  policy: RetryPolicy,
  wait: (ms: number) => Promise<void>,
): Promise<HandlerFailure | undefined> {
  const attempts = policy.maxRetries + 1;
  for (let attempt = 1; ; attempt++) {
    try {
      await handler(envelope, { ...context, attempt });
      return undefined;
    } catch (error) {
      if (attempt >= attempts) return { error: describeError(error), attempts: attempt };
    }
    await wait(policy.retryBackoffMs * 2 ** (attempt - 1));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
