import { parseEventData, type EventDefinition, type EventEnvelope } from '@switchboard/contracts';
import { timeOrderedUuid } from '../database/time-ordered-uuid';
import { currentTraceparent } from '../tracing/tracing';

/** An envelope plus the topic it goes to: what `createEnvelope` returns and what `publish` takes. */
export type OutgoingEvent<TData = unknown> = EventEnvelope<TData> & { topic: string };

export interface PublishOptions {
  /**
   * The caller gives the events up: it keeps no reference it will read or change, and their data is JSON as
   * JSON.parse makes it (the outbox relay's events, parsed from their rows). The in-memory bus then freezes and
   * delivers them where they are instead of making its frozen copy (docs/decisions/0194); what it finds is not such
   * data it copies as without the option. Kafka serialises either way.
   */
  handOver?: boolean;
}

/** Why an event landed on `<topic>.dlq`; set on deliveries from a dead-letter topic. */
export interface DeadLetter {
  error: string;
  attempts: number;
  originalTopic: string;
  /** The consumer group whose handler gave up. Other groups may have handled the event fine. */
  group: string;
  failedAt: string;
}

export interface DeliveryContext {
  topic: string;
  group: string;
  /** 1 on first delivery, then 2, 3, ... on in-process retries. */
  attempt: number;
  deadLetter?: DeadLetter;
}

/** What a driver hands the dead-letter store when a group gives up on an event. */
export interface DeadLetterRecord {
  group: string;
  topic: string;
  /** The event as delivered; null when the record could not be read as one (then `raw` holds it). */
  envelope: EventEnvelope | null;
  raw: string | null;
  error: string;
  attempts: number;
}

/**
 * Where given-up events go (see PgDeadLetterStore): a table per service schema that operators list and replay.
 * `add` answers false when it keeps nothing for the group (no table for its service): the driver then falls back
 * to its own dead-lettering (`<topic>.dlq` on Kafka, an error log in memory). Infrastructure failures it throws are
 * retried like a handler's.
 */
export interface DeadLetterSink {
  add(record: DeadLetterRecord): Promise<boolean>;
}

/** What a redelivery (a dead letter replayed) came to. */
export type RedeliveryOutcome = { status: 'handled' } | { status: 'failed'; error: string; attempts: number } | { status: 'not-subscribed' };

/** Handlers may run more than once for one event (at-least-once): make effects idempotent. */
export type EventHandler = (event: EventEnvelope, context: DeliveryContext) => Promise<void>;

/**
 * A handler of a whole chunk at once (see `SubscribeOptions.batchHandler`): every event of `events` is handled when it
 * resolves. At-least-once like `EventHandler`: the chunk, or some of its events, may come again.
 */
export type BatchEventHandler = (events: EventEnvelope[], context: { topic: string; group: string }) => Promise<void>;

export interface SubscribeOptions {
  /** Consumer group: one per service and purpose, e.g. `stats.campaign-projector`. Each group sees every event once. */
  group: string;
  topics: string[];
  handler: EventHandler;
  /** Attempts after the first failure before the event goes to `<topic>.dlq`. Default 3. */
  maxRetries?: number;
  /** First retry delay, doubled each attempt (jittered). Default 100 ms. */
  retryBackoffMs?: number;
  /**
   * Cap of the retry delay. Default 5 000 ms. Infrastructure failures (the database or broker away: see
   * isInfrastructureError) do not count against `maxRetries`: the same event is retried at most this far apart for
   * as long as the outage lasts, holding its partition or lane, and is never dead-lettered for it.
   */
  maxBackoffMs?: number;
  /**
   * Handlers running at once per partition (Kafka) or lane (in memory). Default 1: a partition's events are handled
   * strictly one after another, in order, so one key's events (one aggregate's) are handled in publish order.
   *
   * Above 1, a partition's events are taken in chunks of up to `concurrency` and the chunk's handlers run
   * concurrently; the chunk is acknowledged (Kafka offsets committed past it, in-memory deliveries settled) only when
   * every one of its handlers finished or its event was dead-lettered, and the next chunk starts after that.
   * ORDER IS GIVEN UP WITHIN A CHUNK, also between events of the same key: two updates of one aggregate may be
   * handled in either order, or at the same time. Use it only where the group's events commute, e.g. each event is
   * about a different aggregate (one message each) or the handler is order-insensitive (a status that only moves
   * forward), typically to feed a group commit (many handlers awaiting one multi-row INSERT). Retries and
   * dead-lettering stay per event; a crash or a failed dead-letter produce redelivers the whole unacknowledged chunk,
   * including events whose handlers had finished (at-least-once, as always).
   */
  concurrency?: number;
  /**
   * With `concurrency` above 1: the chunk's events (those of `types`) handed to this handler as one array, in one
   * call, instead of one `handler` call each - for a group commit without a promise, a retry loop and metrics per
   * event. An infrastructure failure (isInfrastructureError) retries the whole chunk without end, holding the partition
   * or lane, as for `handler`; any other failure hands the chunk's events to `handler` one by one, with their own
   * retries and dead letters, so a bad event fails alone. Dead letters being replayed always go to `handler`.
   */
  batchHandler?: BatchEventHandler;
  /**
   * Only events of these types reach the handler; the others are acknowledged without being parsed (Kafka: read from
   * the record's `type` header; in memory: never queued for the group). For a group that needs a few types of a busy
   * topic, e.g. stream snapshots on the topic that also carries every accepted message. Default: every type.
   */
  types?: string[];
  /**
   * Groups this one takes over from, per topic (Kafka only; in memory there are no committed offsets): when the group
   * has no committed offset on any partition of a topic (a group new to it), each partition starts at the lowest of
   * these groups' committed offsets there, so that nothing any of them had still to handle is skipped, and what the
   * faster ones had handled is read again (the handler must take a redelivery). A partition where one of them has no
   * offset is left to the default start (that group would have started there too). For merging groups or renaming
   * one without a replay of the retained log (docs/decisions/0124).
   */
  formerGroups?: Readonly<Record<string, readonly string[]>>;
}

/**
 * One abstract bus, two drivers: in-memory (embedded mode) and Kafka (distributed). Chosen by configuration.
 * Publishing is at-least-once; consumers make effects idempotent (see IdempotentConsumer).
 */
export abstract class EventBus {
  protected deadLetters?: DeadLetterSink;

  /** Where groups' given-up events go from now on (the platform module sets the PostgreSQL store). */
  useDeadLetters(sink: DeadLetterSink | undefined): void {
    this.deadLetters = sink;
  }

  /**
   * Hands `envelope` to the handler of `group` for `topic` in this process, with the group's retries (a dead letter
   * being replayed). `not-subscribed` when this process does not run that group.
   */
  /** The consumer groups subscribed in this process (those whose dead letters it can replay). */
  subscribedGroups(): string[] {
    return [];
  }

  /**
   * Whether every consumer group of this process has joined its group once since start (readiness waits for it, so a
   * rollout does not retire old replicas before the new ones consume). The in-memory bus has nothing to join.
   */
  consumersJoined(): { joined: boolean; waiting: string[] } {
    return { joined: true, waiting: [] };
  }

  redeliver(_group: string, _topic: string, _envelope: EventEnvelope): Promise<RedeliveryOutcome> {
    return Promise.resolve({ status: 'not-subscribed' });
  }

  /** Resolves once the bus has accepted the events (enqueued in memory, or acknowledged by Kafka). */
  abstract publish(events: OutgoingEvent[], options?: PublishOptions): Promise<void>;
  /** One handler per group and topic. Subscribe before start(): Kafka cannot add topics to a running group. */
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

/**
 * Builds an envelope for a declared event, validating its data against the definition's schema (its hand-written check
 * first, where it has one: `parseEventData`, docs/decisions/0192). Its `data` is the check's answer, a new object.
 */
export function createEnvelope<T>(def: EventDefinition<T>, data: T, meta: EnvelopeMeta): OutgoingEvent<T> {
  const parsed = parseEventData(def, data);
  const event: OutgoingEvent<T> = {
    // time-ordered: the consumers' processed_events and the outbox key events by id (docs/decisions/0161)
    id: meta.id ?? timeOrderedUuid(),
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
  const traceparent = currentTraceparent();
  if (traceparent) event.traceparent = traceparent;
  return event;
}
