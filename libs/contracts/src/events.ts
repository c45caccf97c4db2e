import type { ZodType, ZodTypeDef } from 'zod';

/**
 * Topic names are frozen: renaming one orphans every consumer group and every retained event.
 * Add new topics; never rename or reuse one.
 */
export const Topics = {
  Auth: 'switchboard.auth',
  Accounts: 'switchboard.accounts',
  Contacts: 'switchboard.contacts',
  Campaigns: 'switchboard.campaigns',
  Streams: 'switchboard.streams',
  Dispatch: 'switchboard.dispatch',
  Links: 'switchboard.links',
  Inbox: 'switchboard.inbox',
  Webhooks: 'switchboard.webhooks',
  Stats: 'switchboard.stats',
  Integrations: 'switchboard.integrations',
} as const;
export type Topic = (typeof Topics)[keyof typeof Topics];

/** Dead letters of a topic go to `<topic>.dlq`. */
export const deadLetterTopic = (topic: string): string => `${topic}.dlq`;

/** What travels on the bus. `data` is validated against the event definition's schema. */
export interface EventEnvelope<TData = unknown> {
  id: string;
  type: string;
  version: number;
  occurredAt: string;
  source: string;
  accountId: string | null;
  traceId: string | null;
  /**
   * W3C trace context (`00-<trace id>-<span id>-<flags>`) of the span that created the event, when the process
   * traces (OpenTelemetry); absent otherwise. Consumers continue the trace from it.
   */
  traceparent?: string;
  /** Partition key: the aggregate id, so one aggregate's events stay ordered. */
  key: string;
  data: TData;
}

export interface EventDefinition<TData> {
  type: string;
  version: number;
  topic: Topic;
  key: (data: TData) => string;
  schema: ZodType<TData, ZodTypeDef, unknown>;
}

/** Declares an event once: type `<service>.<aggregate>.<past-verb>`, version, topic, key and runtime schema. */
export function defineEvent<TData>(def: EventDefinition<TData>): EventDefinition<TData> {
  if (!/^[a-z]+\.[a-z_]+\.[a-z_]+$/.test(def.type)) {
    throw new Error(`event type "${def.type}" must be <service>.<aggregate>.<past-verb>`);
  }
  return Object.freeze(def);
}

export type EventData<D> = D extends EventDefinition<infer T> ? T : never;
