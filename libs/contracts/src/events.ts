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
  /**
   * The schema's `parse` written out by hand for the data of the platform's hot paths (docs/decisions/0192): what the
   * schema's parse would answer (a new object of the schema's keys, in its order) for data it is sure of, and undefined
   * for anything else, which then goes through the schema itself, with its usual error. Never more permissive than the
   * schema: tested against it on generated good and bad data. Used by `parseEventData` (and so by `createEnvelope`).
   */
  fast?: (data: unknown) => TData | undefined;
}

/** Declares an event once: type `<service>.<aggregate>.<past-verb>`, version, topic, key and runtime schema. */
export function defineEvent<TData>(def: EventDefinition<TData>): EventDefinition<TData> {
  if (!/^[a-z]+\.[a-z_]+\.[a-z_]+$/.test(def.type)) {
    throw new Error(`event type "${def.type}" must be <service>.<aggregate>.<past-verb>`);
  }
  return Object.freeze(def);
}

export type EventData<D> = D extends EventDefinition<infer T> ? T : never;

/**
 * An event's data checked against its definition, as `def.schema.parse(data)` answers: the definition's hand-written
 * check (`fast`) first, the schema (and its error) for anything that check does not pass.
 */
export function parseEventData<T>(def: Pick<EventDefinition<T>, 'schema' | 'fast'>, data: unknown): T {
  return def.fast?.(data) ?? def.schema.parse(data);
}

/** `def.schema.safeParse(data)`, with the definition's hand-written check first (as `parseEventData`). */
export function safeParseEventData<T>(def: Pick<EventDefinition<T>, 'schema' | 'fast'>, data: unknown): { success: true; data: T } | { success: false; error: { message: string } } {
  const fast = def.fast?.(data);
  if (fast !== undefined) return { success: true, data: fast };
  const r = def.schema.safeParse(data);
  return r.success ? { success: true, data: r.data } : { success: false, error: r.error };
}
