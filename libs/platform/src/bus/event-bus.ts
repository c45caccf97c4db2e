import { randomUUID } from 'node:crypto';
import type { EventDefinition, EventEnvelope } from '@switchboard/contracts';

export type EventHandler = (event: EventEnvelope) => Promise<void>;

export interface SubscribeOptions {
  /** Consumer group: one per service and purpose, e.g. `stats.campaign-projector`. Each group sees every event once. */
  group: string;
  topics: string[];
  handler: EventHandler;
  /** Attempts after the first failure before the event goes to `<topic>.dlq`. Default 3. */
  maxRetries?: number;
  /** First retry delay, doubled each attempt. Default 100 ms. */
  retryBackoffMs?: number;
}

/**
 * One abstract bus, two drivers: in-memory (embedded mode) and Kafka (distributed). Chosen by configuration.
 * Publishing is at-least-once; consumers make effects idempotent (see IdempotentConsumer).
 */
export abstract class EventBus {
  abstract publish(events: EventEnvelope[]): Promise<void>;
  abstract subscribe(options: SubscribeOptions): Promise<void>;
  abstract start(): Promise<void>;
  abstract stop(): Promise<void>;
}

export interface EnvelopeMeta {
  accountId: string | null;
  source: string;
  traceId?: string | null;
  id?: string;
  occurredAt?: Date;
}

/** Builds an envelope for a declared event, validating its data against the definition's schema. */
export function createEnvelope<T>(def: EventDefinition<T>, data: T, meta: EnvelopeMeta): EventEnvelope<T> & { topic: string } {
  const parsed = def.schema.parse(data);
  return {
    id: meta.id ?? randomUUID(),
    type: def.type,
    version: def.version,
    occurredAt: (meta.occurredAt ?? new Date()).toISOString(),
    source: meta.source,
    accountId: meta.accountId,
    traceId: meta.traceId ?? null,
    key: def.key(parsed),
    data: parsed,
    topic: def.topic,
  };
}
