import { Logger, type LoggerService } from '@nestjs/common';
import { deadLetterTopic, type EventEnvelope } from '@switchboard/contracts';
import {
  concurrencyOf,
  deadLetterHeaders,
  DeliveryAborted,
  describeError,
  retryWhileDown,
  envelopeHeaders,
  handleChunkWithRetries,
  handleWithRetries,
  isDeadLetterTopic,
  frozenJsonCopy,
  frozenJsonHandedOver,
  readDeadLetter,
  retryPolicy,
  settleAll,
  sleep,
  toEnvelope,
  type DeliveryHooks,
  type Headers,
  type RetryPolicy,
} from './delivery';
import { EventBus, type BatchEventHandler, type EventHandler, type OutgoingEvent, type PublishOptions, type RedeliveryOutcome, type SubscribeOptions } from './event-bus';

export interface InMemoryEventBusOptions {
  /**
   * Lanes per group and topic, the in-memory counterpart of Kafka partitions: an event's key picks its lane, so one
   * key's events are handled in order (with `concurrency` 1) while other keys proceed on other lanes. A lane runs up
   * to the subscription's `concurrency` handlers at once, so lanes x concurrency bounds a subscription. Default 8.
   */
  partitions?: number;
  logger?: Pick<LoggerService, 'warn' | 'error'>;
  /**
   * When publish() resolves: once the events are queued (`enqueued`, the default), or once every subscribed group
   * has handled or dead-lettered them (`handled`). The embedded server uses `handled`, so the outbox relay marks a
   * row published only after its consumers ran: a crash in between republishes it instead of losing it.
   */
  ack?: 'enqueued' | 'handled';
}

interface Delivery {
  topic: string;
  envelope: EventEnvelope;
  headers: Headers;
  settled?: () => void;
}

interface Lane {
  /** Deliveries from `head` on are waiting; those before it are done. An index, as shift() is O(n) on long arrays. */
  queue: Delivery[];
  head: number;
  /** The running drain loop, if any: at most one per lane, so chunks of a lane never overlap. */
  active?: Promise<void>;
}

interface Subscription {
  group: string;
  topic: string;
  handler: EventHandler;
  /** The chunk at once (`SubscribeOptions.batchHandler`); not for a dead-letter topic's replays. */
  batch?: BatchEventHandler;
  policy: RetryPolicy;
  /** Deliveries of a lane handled at once, as one chunk. */
  concurrency: number;
  /** The event types this group takes; null = all. */
  types: ReadonlySet<string> | null;
  lanes: Lane[];
  /** Built once: a delivery must not allocate its outage callbacks. */
  hooks?: DeliveryHooks;
}

/**
 * The embedded-mode bus: asynchronous, at-least-once within the process, nothing survives a restart (the
 * outbox is the durable part). Events go only to groups subscribed when they are published.
 */
export class InMemoryEventBus extends EventBus {
  private readonly partitions: number;
  private readonly logger: Pick<LoggerService, 'warn' | 'error'>;
  /** topic -> group -> subscription */
  private readonly subscriptions = new Map<string, Map<string, Subscription>>();
  private running = false;
  /** Deliveries enqueued and not yet handled or dead-lettered. */
  private pending = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly ack: 'enqueued' | 'handled';

  constructor(options: InMemoryEventBusOptions = {}) {
    super();
    this.ack = options.ack ?? 'enqueued';
    this.partitions = Math.max(1, options.partitions ?? 8);
    this.logger = options.logger ?? new Logger(InMemoryEventBus.name);
  }

  async subscribe(options: SubscribeOptions): Promise<void> {
    const policy = retryPolicy(options);
    const concurrency = concurrencyOf(options);
    for (const topic of options.topics) {
      if (this.subscriptions.get(topic)?.has(options.group)) throw new Error(`group "${options.group}" is already subscribed to "${topic}"`);
    }
    for (const topic of options.topics) {
      const groups = this.subscriptions.get(topic) ?? new Map<string, Subscription>();
      const lanes = Array.from({ length: this.partitions }, (): Lane => ({ queue: [], head: 0 }));
      const types = options.types ? new Set(options.types) : null;
      const batch = options.batchHandler && concurrency > 1 && !isDeadLetterTopic(topic) ? options.batchHandler : undefined;
      groups.set(options.group, { group: options.group, topic, handler: options.handler, batch, policy, concurrency, types, lanes });
      this.subscriptions.set(topic, groups);
    }
  }

  /**
   * Enqueues and returns: handlers run later. Before start() events wait in their lanes. With `ack: 'handled'` it
   * resolves once every delivery of these events settled: one count and one promise per call, not one per delivery.
   * `handOver`: the events' data is frozen where it is rather than copied (PublishOptions; docs/decisions/0194).
   */
  async publish(events: OutgoingEvent[], options?: PublishOptions): Promise<void> {
    const handOver = options?.handOver === true;
    let resolve: (() => void) | undefined;
    const handled = this.ack === 'handled' ? new Promise<void>((r) => (resolve = r)) : null;
    // one more than the deliveries queued, until the loop is done: a delivery settling meanwhile cannot resolve early
    let waiting = 1;
    const settled = handled ? () => --waiting === 0 && resolve?.() : undefined;
    for (const event of events) {
      if (!this.wanted(event.topic, event.type)) continue; // nobody to deliver to: skip the serialisation too
      // One copy a publish, as Kafka's JSON record would carry it: embedded mode fails the same way on non-JSON data,
      // and Dates become strings (without the text in between: docs/decisions/0077). It is deep-frozen and shared by
      // every group, so no group's handler can change what another, a retry or a dead letter sees (0142).
      // Handed over (the relay's events, parsed from their rows a moment before): the same, without the copy: the
      // publisher's events are delivered frozen, so what lives while the groups handle them is one set, not two.
      const envelope = handOver ? frozenJsonHandedOver(toEnvelope(event)) : frozenJsonCopy(toEnvelope(event));
      waiting += this.enqueue(event.topic, envelope, envelopeHeaders(envelope), settled);
    }
    if (!handled || !settled) return;
    settled();
    await handled;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    for (const groups of this.subscriptions.values()) {
      for (const sub of groups.values()) sub.lanes.forEach((lane) => this.pump(sub, lane));
    }
  }

  /** Stops taking new deliveries and waits for the in-flight ones (including their retries). Queued events stay queued. */
  async stop(): Promise<void> {
    this.running = false;
    const active: Array<Promise<void> | undefined> = [];
    for (const groups of this.subscriptions.values()) {
      for (const sub of groups.values()) active.push(...sub.lanes.map((lane) => lane.active));
    }
    await Promise.all(active);
  }

  /** Resolves when every enqueued event, dead letters included, has been handled. Needs a started bus. */
  drain(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Whether some group on `topic` takes events of `type`. */
  private wanted(topic: string, type: string): boolean {
    const groups = this.subscriptions.get(topic);
    if (!groups) return false;
    for (const sub of groups.values()) if (!sub.types || sub.types.has(type)) return true;
    return false;
  }

  /**
   * Queues one delivery per subscribed group and answers how many; `settled` is called once for each when it was
   * handled or dead-lettered. `envelope` is a frozenJsonCopy: every group's delivery shares it.
   */
  private enqueue(topic: string, envelope: EventEnvelope, headers: Headers, settled?: () => void): number {
    const groups = this.subscriptions.get(topic);
    if (!groups) return 0;
    let queued = 0;
    const type = envelope.type;
    for (const sub of groups.values()) {
      if (sub.types && !sub.types.has(type)) continue;
      const lane = sub.lanes[laneOf(envelope.key, sub.lanes.length)];
      // the headers are only read (a dead letter's are a new object): every group's delivery shares them
      lane.queue.push({ topic, envelope, headers, settled });
      queued++;
      this.pending++;
      this.pump(sub, lane);
    }
    return queued;
  }

  private pump(sub: Subscription, lane: Lane): void {
    if (!this.running || lane.active || lane.head === lane.queue.length) return;
    lane.active = this.drainLane(sub, lane)
      .catch((error: unknown) => {
        // Stopping in the middle of an outage: the chunk stays queued, for start() to deliver again.
        if (!(error instanceof DeliveryAborted)) this.logger.error(`lane of group ${sub.group} on ${sub.topic} stopped: ${String(error)}`);
      })
      .finally(() => {
        lane.active = undefined;
        // Something may have been enqueued between the loop's last check and this callback.
        this.pump(sub, lane);
      });
  }

  /**
   * Handles the lane's queue in chunks of up to `concurrency` deliveries, all of a chunk at once; a chunk settles
   * (and leaves the queue) only when every one of its deliveries was handled or dead-lettered.
   */
  private async drainLane(sub: Subscription, lane: Lane): Promise<void> {
    // The publish() that woke the lane is still enqueueing its other events: let it finish, so they share a chunk.
    await Promise.resolve();
    while (this.running && lane.head < lane.queue.length) {
      const chunk = lane.queue.slice(lane.head, lane.head + sub.concurrency);
      // a batch handler takes the chunk in one call; one that failed for another reason than an outage hands each
      // event to the handler, with its own retries and dead letter
      if (!sub.batch || !(await this.deliverChunk(sub, sub.batch, chunk))) await settleAll(chunk.map((delivery) => this.deliver(sub, delivery)));
      // the handled deliveries let go of their events now (a lane kept busy is emptied or compacted only now and then,
      // and events may be large: an audience chunk is about a megabyte, docs/decisions/0140)
      for (let i = lane.head; i < lane.head + chunk.length; i++) lane.queue[i] = HANDLED;
      lane.head += chunk.length;
      if (lane.head === lane.queue.length) {
        lane.queue = [];
        lane.head = 0;
      } else if (lane.head >= COMPACT_AFTER && lane.head * 2 >= lane.queue.length) {
        lane.queue = lane.queue.slice(lane.head);
        lane.head = 0;
      }
      for (const delivery of chunk) {
        delivery.settled?.();
        this.settle();
      }
    }
  }

  private deliverChunk(sub: Subscription, batch: BatchEventHandler, chunk: Delivery[]): Promise<boolean> {
    const hooks = (sub.hooks ??= this.hooks(sub.group, sub.topic));
    const envelopes = new Array<EventEnvelope>(chunk.length);
    for (let i = 0; i < chunk.length; i++) envelopes[i] = chunk[i].envelope;
    return handleChunkWithRetries(batch, envelopes, { topic: sub.topic, group: sub.group }, sub.policy, sleep, hooks);
  }

  private async deliver(sub: Subscription, delivery: Delivery): Promise<void> {
    const { envelope, topic, headers } = delivery;
    const context = { topic, group: sub.group, deadLetter: readDeadLetter(headers) };
    const hooks = (sub.hooks ??= this.hooks(sub.group, topic));
    const failure = await handleWithRetries(sub.handler, envelope, context, sub.policy, sleep, hooks);
    if (!failure) return;

    const sink = this.deadLetters;
    if (sink && !isDeadLetterTopic(topic)) {
      const record = { group: sub.group, topic, envelope, raw: null, error: failure.error, attempts: failure.attempts };
      if (await retryWhileDown(() => sink.add(record), sub.policy, sleep, hooks)) {
        this.logger.error(`group ${sub.group} gave up on ${envelope.id} (${envelope.type}) after ${failure.attempts} attempts; kept in the dead-letter store: ${failure.error}`);
        return;
      }
    }
    if (isDeadLetterTopic(topic)) {
      this.logger.error(`group ${sub.group} failed on dead letter ${envelope.id} (${envelope.type}) from ${topic}; dropped: ${failure.error}`);
      return;
    }
    const dlq = deadLetterTopic(topic);
    this.logger.warn(`group ${sub.group} gave up on ${envelope.id} (${envelope.type}) after ${failure.attempts} attempts; sent to ${dlq}: ${failure.error}`);
    const deadLetter = { ...failure, originalTopic: topic, group: sub.group, failedAt: new Date().toISOString() };
    // Enqueued before this delivery settles, so drain() also waits for the dead-letter handlers.
    void this.enqueue(dlq, envelope, { ...headers, ...deadLetterHeaders(deadLetter) });
  }

  /** The lane waits out an outage: one warning when it starts, one every 20 failed attempts, one when it ends. */
  private hooks(group: string, topic: string): DeliveryHooks {
    return {
      running: () => this.running,
      onOutage: (error: unknown, n: number) => {
        if (n === 1 || n % 20 === 0) this.logger.warn(`group ${group} on ${topic} paused (attempt ${n}), infrastructure unavailable: ${describeError(error)}`);
      },
      onRecovered: (n: number) => this.logger.warn(`group ${group} on ${topic} resumed after ${n} failed attempts`),
    };
  }

  override subscribedGroups(): string[] {
    const groups = new Set<string>();
    for (const subs of this.subscriptions.values()) for (const group of subs.keys()) groups.add(group);
    return [...groups];
  }

  override async redeliver(group: string, topic: string, envelope: EventEnvelope): Promise<RedeliveryOutcome> {
    const sub = this.subscriptions.get(topic)?.get(group);
    if (!sub) return { status: 'not-subscribed' };
    const copy = frozenJsonCopy(envelope);
    const failure = await handleWithRetries(sub.handler, copy, { topic, group }, sub.policy, sleep, this.hooks(group, topic));
    return failure ? { status: 'failed', ...failure } : { status: 'handled' };
  }

  private settle(): void {
    this.pending--;
    if (this.pending > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    waiters.forEach((resolve) => resolve());
  }
}

/** Done deliveries a lane keeps before dropping them from its array (when they are at least half of it). */
const COMPACT_AFTER = 1024;
/** What a handled delivery's slot of its lane's queue holds until the queue is emptied or compacted. */
const HANDLED: Delivery = Object.freeze({ topic: '', envelope: Object.freeze({}) as EventEnvelope, headers: Object.freeze({}) as Headers });

/** FNV-1a: cheap, stable, well spread for short ids. */
function laneOf(key: string, lanes: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % lanes;
}
