import { Logger, type LoggerService } from '@nestjs/common';
import { deadLetterTopic, type EventEnvelope } from '@switchboard/contracts';
import {
  CompressionTypes,
  Kafka,
  logLevel as KafkaLogLevel,
  Partitioners,
  type Consumer,
  type EachBatchPayload,
  type IHeaders,
  type KafkaConfig,
  type KafkaMessage,
  type LogEntry,
  type Message,
  type Producer,
} from 'kafkajs';
import {
  concurrencyOf,
  deadLetterHeaders,
  describeError,
  retryWhileDown,
  envelopeHeaders,
  handleChunkWithRetries,
  handleWithRetries,
  isDeadLetterTopic,
  readDeadLetter,
  retryPolicy,
  settleAll,
  sleep,
  toEnvelope,
  type DeliveryHooks,
  type HandlerFailure,
  type Headers,
} from './delivery';
import { EventBus, type BatchEventHandler, type OutgoingEvent, type RedeliveryOutcome, type SubscribeOptions } from './event-bus';
import { KafkaMetrics } from '../metrics/metrics';
import { OFFSET_RESET_LOG, patchKafkaOffsetResetReport, skippedByReset, type OffsetResetEntry } from './kafka-offset-reset';
import { patchKafkaRequestQueueIdleTimer } from './kafka-request-queue';
import { patchKafkaSyncGroupRejoin } from './kafka-sync-group';

// kafkajs' idle connections spin a 1 ms timer without it (see kafka-request-queue.ts).
patchKafkaRequestQueueIdleTimer();
// A follower late for a sync the leader completed rejoins instead of crashing (see kafka-sync-group.ts).
patchKafkaSyncGroupRejoin();
// A group's offset out of range of the log is reported with its offsets before kafkajs resets it (see kafka-offset-reset.ts).
patchKafkaOffsetResetReport();

/** kafkajs' own console logger (what a Kafka client logs through when given no logCreator). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- kafkajs' internal module, no typings
const kafkaConsoleLogCreator = require('kafkajs/src/loggers/console') as NonNullable<KafkaConfig['logCreator']>;

/**
 * How record batches are compressed on the wire and in the broker's log. Default `gzip` (the one codec kafkajs ships):
 * JSON envelopes shrink 5 to 8 times, for about 2 to 5 µs of CPU per record when produced and 1 µs per consumer group
 * when read (docs/decisions/0085). A broker's retention in bytes then holds that many times more events, and a consumer
 * that falls behind (a restart under load) has that much more time before records it has not read are deleted.
 */
export type KafkaCompression = 'gzip' | 'none';

/**
 * Group membership settings of every service's consumers (issue 17: a process joining or dying costs at most 10 s of
 * progress). A SIGKILLed process's partitions are idle until the broker ends its session: 6 s (brokers' default
 * minimum) instead of kafkajs' 30 s. Heartbeats every 500 ms, so the others learn of a rebalance within half a second.
 * A rebalance waits at most 6 s for a member still finishing a batch (kafkajs' default is 60 s, and a restarted process's
 * new member waited that long for its dead predecessor: a 61 s stall of streams in the fault drill). Handlers heartbeat
 * through outage retries (below), so a long PostgreSQL outage does not end a session. kafkajs has neither cooperative
 * rebalancing nor static membership; a SIGTERM leaves the group at once (consumers disconnect on shutdown).
 *
 * kafkajs has no heartbeat thread: a consumer heartbeats after each fetch answer, so its fetch wait is its real
 * heartbeat interval. At kafkajs' default 5 s an idle member heartbeated every 5 s against a 6 s session: a second of
 * event-loop lag on a loaded machine ended its session (a rebalance of the whole group), and it learnt of another
 * member's join up to 5 s late, after the coordinator's join window (librdkafka's mock waits the session less one
 * second, 5 s) had closed without it: one more rebalance. Fetches wait at most 1 s (docs/decisions/0079). While a
 * chunk's handlers run, the bus heartbeats on a timer, so a chunk longer than the session keeps the membership
 * (docs/decisions/0106).
 */
export const failoverConsumerTuning = { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 6000, maxWaitTimeMs: 1000 } as const;

export interface KafkaConsumerTuning {
  /** Default 30 000. */
  sessionTimeoutMs?: number;
  /** Default 3 000. Retry backoff waits heartbeat at this interval too, so long backoffs keep the membership. */
  heartbeatIntervalMs?: number;
  /** Default 60 000. */
  rebalanceTimeoutMs?: number;
  /** Longest a fetch waits for data. Default 5 000. */
  maxWaitTimeMs?: number;
  /**
   * Partitions handled in parallel per consumer; a partition is always handled one chunk at a time (see
   * `SubscribeOptions.concurrency`). Default 1. With `concurrency` above 1 feeding a group commit, set it to the
   * partitions a consumer owns, so every partition's chunk can join the same commit.
   */
  partitionsConsumedConcurrently?: number;
  /**
   * Most a fetch returns per partition. Default 1 MiB (kafkajs'). A fetched batch is what chunks are cut from, so it
   * should hold several chunks: at least `concurrency` x record size x 2.
   */
  maxBytesPerPartition?: number;
  /** Most a fetch returns over all partitions of a broker. Default 10 MiB (kafkajs'). */
  maxBytes?: number;
  /**
   * Least a fetch waits for (up to `maxWaitTimeMs`) before the broker answers. Default 1 byte: answer as soon as
   * anything is there. A few tens of KiB make fuller batches on a busy topic, at up to `maxWaitTimeMs` of latency
   * when the topic is quiet.
   */
  minBytes?: number;
}

export interface KafkaEventBusOptions {
  clientId: string;
  brokers: string[];
  /** Create topics with the admin API before first use. Default false: topics are provisioned or auto-created. */
  createTopics?: boolean;
  /** Partitions of topics created by `createTopics`. Default 4. */
  partitions?: number;
  /** Compression of produced record batches (`KAFKA_COMPRESSION`). Default `gzip`. */
  compression?: KafkaCompression;
  /** Kafka's idempotent producer (no duplicates from producer retries). Default false. */
  idempotentProducer?: boolean;
  /** A new consumer group starts at the oldest retained event rather than the newest. Default true. */
  fromBeginning?: boolean;
  logLevel?: KafkaLogLevel;
  consumer?: KafkaConsumerTuning;
  /** Connection extras (ssl, sasl, timeouts) passed to kafkajs as they are. */
  client?: Omit<KafkaConfig, 'clientId' | 'brokers' | 'logLevel'>;
  logger?: Pick<LoggerService, 'log' | 'warn' | 'error'>;
}

interface Group {
  name: string;
  subscriptions: Map<string, SubscribeOptions>;
  consumer?: Consumer;
  /** Joined its group at least once since start (readiness). */
  joined?: boolean;
  /** Consecutive restarts after crashes, for the restart backoff; reset when the consumer joins. */
  restarts: number;
  restartTimer?: NodeJS.Timeout;
}

/** Offsets of handled messages are committed at least this often within a long batch. */
const AUTO_COMMIT_INTERVAL_MS = 1000;
const RESTART_DELAY_MS = 1000;
/**
 * A crashed consumer is started again after 1, 2, 4 s, then every 5 s while it keeps crashing: its partitions are
 * idle meanwhile (30 s before, which turned a few crashes in a row into a minute without progress).
 */
const MAX_RESTART_DELAY_MS = 5000;

/**
 * The distributed-mode bus. Records are keyed by the envelope key (one aggregate, one partition, in order), the
 * value is the JSON envelope, headers carry id/type/version. One kafkajs consumer per group; a partition's
 * messages are handled in chunks of the subscription's `concurrency` (one at a time by default), each retried in
 * process, then dead-lettered, and a chunk's offsets are committed only after every handler or dead-letter produce
 * of the chunk succeeded.
 */
export class KafkaEventBus extends EventBus {
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly logger: Pick<LoggerService, 'log' | 'warn' | 'error'>;
  private readonly groups = new Map<string, Group>();
  private readonly knownTopics = new Set<string>();
  private readonly compression: CompressionTypes;
  private producerConnection?: Promise<void>;
  private running = false;

  constructor(private readonly options: KafkaEventBusOptions) {
    super();
    this.logger = options.logger ?? new Logger(KafkaEventBus.name);
    this.compression = options.compression === 'none' ? CompressionTypes.None : CompressionTypes.GZIP;
    const level = options.logLevel ?? KafkaLogLevel.WARN;
    const creator = (options.client as KafkaConfig | undefined)?.logCreator ?? kafkaConsoleLogCreator;
    this.kafka = new Kafka({
      ...options.client,
      clientId: options.clientId,
      brokers: options.brokers,
      // errors always reach the log creator, whatever the level: an offset reset is counted and reported even by a
      // bus that logs nothing of kafkajs' own (logLevel NOTHING); the rest is filtered to `level` below
      logLevel: Math.max(level, KafkaLogLevel.ERROR),
      logCreator: () => {
        const log = creator(level);
        return (entry: LogEntry) => {
          if (entry.log.message === OFFSET_RESET_LOG) return this.reportOffsetReset(entry.log as unknown as OffsetResetEntry);
          if (entry.level <= level) log(entry);
        };
      },
    });
    this.producer = this.kafka.producer({
      idempotent: options.idempotentProducer ?? false,
      // One request in flight: a retried send cannot overtake the next one, so per-key order holds.
      maxInFlightRequests: 1,
      // murmur2, the Java client's partitioner: other clients put the same key on the same partition.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  async subscribe(options: SubscribeOptions): Promise<void> {
    const group = this.groups.get(options.group) ?? { name: options.group, subscriptions: new Map<string, SubscribeOptions>(), restarts: 0 };
    if (group.consumer) {
      throw new Error(`group "${options.group}" is already consuming: subscribe all its topics before start()`);
    }
    concurrencyOf(options); // refuse a bad value now rather than in the consumer
    for (const topic of options.topics) {
      if (group.subscriptions.has(topic)) throw new Error(`group "${options.group}" is already subscribed to "${topic}"`);
    }
    for (const topic of options.topics) group.subscriptions.set(topic, options);
    this.groups.set(group.name, group);
    if (this.running) await this.runGroup(group);
  }

  /** Resolves when the brokers acknowledged every event (acks from all in-sync replicas). */
  async publish(events: OutgoingEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.connectProducer();
    const byTopic = new Map<string, Message[]>();
    for (const event of events) {
      const envelope = toEnvelope(event);
      const messages = byTopic.get(event.topic) ?? [];
      messages.push({ key: envelope.key, value: JSON.stringify(envelope), headers: envelopeHeaders(envelope) });
      byTopic.set(event.topic, messages);
    }
    await this.ensureTopics([...byTopic.keys()]);
    await this.producer.sendBatch({ acks: -1, compression: this.compression, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
  }

  override consumersJoined(): { joined: boolean; waiting: string[] } {
    const waiting = [...this.groups.values()].filter((g) => !g.joined).map((g) => g.name);
    return { joined: this.running && waiting.length === 0, waiting };
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.connectProducer();
    // Joins run in parallel: each waits for the coordinator's initial rebalance delay.
    await Promise.all([...this.groups.values()].map((group) => this.runGroup(group)));
  }

  /** Consumers leave their groups after their in-flight messages (committing what was handled), then the producer disconnects. */
  async stop(): Promise<void> {
    this.running = false;
    const consumers = [...this.groups.values()].map((group) => {
      clearTimeout(group.restartTimer);
      const consumer = group.consumer;
      group.consumer = undefined;
      return consumer?.disconnect();
    });
    await Promise.all(consumers);
    if (this.producerConnection) {
      this.producerConnection = undefined;
      await this.producer.disconnect();
    }
  }

  private connectProducer(): Promise<void> {
    this.producerConnection ??= this.producer.connect().catch((error: unknown) => {
      this.producerConnection = undefined;
      throw error;
    });
    return this.producerConnection;
  }

  private async runGroup(group: Group): Promise<void> {
    const tuning = this.options.consumer ?? {};
    const topics = [...group.subscriptions.keys()];
    await this.ensureTopics([...topics, ...topics.filter((t) => !isDeadLetterTopic(t)).map(deadLetterTopic)]);
    await this.takeOverOffsets(group);

    const consumer = this.kafka.consumer({
      groupId: group.name,
      sessionTimeout: tuning.sessionTimeoutMs,
      heartbeatInterval: tuning.heartbeatIntervalMs,
      rebalanceTimeout: tuning.rebalanceTimeoutMs,
      maxWaitTimeInMs: tuning.maxWaitTimeMs,
      maxBytesPerPartition: tuning.maxBytesPerPartition,
      maxBytes: tuning.maxBytes,
      minBytes: tuning.minBytes,
    });
    group.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, () => {
      group.restarts = 0;
      group.joined = true;
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.logger.error(`consumer of group ${group.name} crashed: ${String(payload.error)}`);
      // kafkajs restarts a consumer itself only after retriable errors. After any other error it stays stopped,
      // and a group member must not die silently, so we start a new one.
      if (!payload.restart) this.scheduleRestart(group, consumer);
    });
    await consumer.connect();
    await consumer.subscribe({ topics, fromBeginning: this.options.fromBeginning ?? true });
    // kafkajs commits only resolved offsets (after each batch, on rebalance, on stop, when eachBatch throws, and
    // every AUTO_COMMIT_INTERVAL_MS), and fetches a partition again from its last resolved offset after an error.
    // handleBatch resolves a chunk's offsets only after the whole chunk was handled, so a message whose handler and
    // dead-letter produce both failed, or whose chunk was cut short, is fetched again instead of being skipped.
    await consumer.run({
      autoCommit: true,
      autoCommitInterval: AUTO_COMMIT_INTERVAL_MS,
      partitionsConsumedConcurrently: tuning.partitionsConsumedConcurrently ?? 1,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.handleBatch(group, payload),
    });
  }

  /**
   * Before the group's consumer joins: on each topic where the group has no committed offset yet and its subscription
   * names `formerGroups`, the group's offsets are set to the lowest of those groups' committed offsets, partition by
   * partition (docs/decisions/0124). They are committed by a short-lived member of the group (a commit needs a member
   * of the current generation; the admin API's `setOffsets` also needs DescribeGroups, which librdkafka's mock, the
   * Kafka of the tests and drills, lacks), which joins, checks again that the group still has no offsets of its own
   * (a replica starting at the same time may have seeded and run first), commits, and leaves. Only then does the
   * group's real consumer join: it fetches from the committed offsets, never from the default start.
   */
  private async takeOverOffsets(group: Group): Promise<void> {
    const plans = [...group.subscriptions].flatMap(([topic, s]) => (s.formerGroups?.[topic]?.length ? [{ topic, formers: s.formerGroups[topic] }] : []));
    if (plans.length === 0) return;
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const unset = async (topic: string) => {
        const [own] = await admin.fetchOffsets({ groupId: group.name, topics: [topic] });
        return !own?.partitions.some((p) => Number(p.offset) >= 0);
      };
      const seeds: Array<{ topic: string; formers: readonly string[]; partitions: Array<{ partition: number; offset: string }> }> = [];
      for (const { topic, formers } of plans) {
        if (!(await unset(topic))) continue;
        const lowest = new Map<number, bigint | null>();
        for (const former of formers) {
          const [theirs] = await admin.fetchOffsets({ groupId: former, topics: [topic] });
          for (const p of theirs?.partitions ?? []) {
            const at = Number(p.offset) >= 0 ? BigInt(p.offset) : null;
            const seen = lowest.get(p.partition);
            // a former group without an offset on the partition would have started at the default: so does this one
            lowest.set(p.partition, seen === undefined ? at : seen === null || at === null ? null : at < seen ? at : seen);
          }
        }
        const partitions = [...lowest].flatMap(([partition, at]) => (at === null ? [] : [{ partition, offset: at.toString() }]));
        if (partitions.length > 0) seeds.push({ topic, formers, partitions });
      }
      if (seeds.length === 0) return;
      const tuning = this.options.consumer ?? {};
      const seeder = this.kafka.consumer({ groupId: group.name, sessionTimeout: tuning.sessionTimeoutMs, heartbeatInterval: tuning.heartbeatIntervalMs, rebalanceTimeout: tuning.rebalanceTimeoutMs });
      await seeder.connect();
      try {
        await seeder.subscribe({ topics: seeds.map((s) => s.topic), fromBeginning: this.options.fromBeginning ?? true });
        // joins the group; it handles nothing (no offset is resolved) and is paused at once
        await seeder.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: async () => undefined });
        seeder.pause(seeds.map((s) => ({ topic: s.topic })));
        for (const { topic, formers, partitions } of seeds) {
          if (!(await unset(topic))) continue;
          await seeder.commitOffsets(partitions.map((p) => ({ topic, ...p })));
          this.logger.log(`group ${group.name} starts ${topic} where ${formers.join(', ')} left it: ${partitions.map((p) => `${p.partition}@${p.offset}`).join(' ')}`);
        }
      } finally {
        await seeder.disconnect();
      }
    } finally {
      await admin.disconnect();
    }
  }

  private scheduleRestart(group: Group, crashed: Consumer | undefined): void {
    if (!this.running || group.consumer !== crashed || group.restartTimer) return;
    const delay = Math.min(MAX_RESTART_DELAY_MS, RESTART_DELAY_MS * 2 ** group.restarts++);
    this.logger.warn(`restarting the consumer of group ${group.name} in ${delay} ms`);
    group.restartTimer = setTimeout(() => {
      group.restartTimer = undefined;
      if (!this.running || group.consumer !== crashed) return;
      void crashed?.disconnect().catch(() => undefined);
      group.consumer = undefined;
      this.runGroup(group).catch((error: unknown) => {
        this.logger.error(`restarting the consumer of group ${group.name} failed: ${String(error)}`);
        this.scheduleRestart(group, group.consumer);
      });
    }, delay);
  }

  /**
   * One fetched batch of one partition, in chunks of `concurrency` messages. After each chunk: resolve its last
   * offset, heartbeat (which throws if the group is rebalancing: kafkajs then commits what was resolved and rejoins),
   * and commit. A chunk with a failure throws before its offsets are resolved.
   *
   * With concurrency 1 the commit waits for the auto-commit interval, as kafkajs' eachMessage does. Above 1 every
   * chunk is committed as soon as it is done: a chunk is many handlers' work (a group commit), and committing it at
   * once limits what a crash redelivers to the chunks in flight, for one OffsetCommit per chunk.
   */
  private async handleBatch(group: Group, payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, uncommittedOffsets, isRunning, isStale } = payload;
    const subscription = group.subscriptions.get(batch.topic);
    if (!subscription) return;
    const concurrency = concurrencyOf(subscription);
    // Records of types the group does not take (by their type header) need no handler, so they are not chunked: a
    // topic that carries mostly other types (streams' per-message events past campaigns' answers group) would
    // otherwise cost a heartbeat and an offset commit per `concurrency` of them, and hold the records behind them
    // for as many broker round trips (docs/decisions/0074). They are acknowledged with the batch's last offset.
    const types = typesOf(subscription);
    const messages = types ? batch.messages.filter((m) => takesType(types, m.headers)) : batch.messages;
    // The lag the batch starts with (high watermark minus its last offset), for dashboards and lag-based autoscaling.
    KafkaMetrics.partitionLag().set({ group: group.name, topic: batch.topic, partition: String(batch.partition) }, Number(batch.offsetLag()));
    // While the database or broker is away a handler retries the same message without end (see handleWithRetries):
    // its chunk is not done, so nothing later on this partition is handled or committed - the partition is paused in
    // place, in order, heartbeating - until the outage ends or the partition is given up (stop, rebalance).
    const hooks = this.hooks(group.name, batch.topic, () => this.running && isRunning() && !isStale());
    for (let start = 0; start < messages.length; start += concurrency) {
      // Stopping, or the partition was sought/revoked: leave the rest unresolved for whoever fetches it next.
      if (!isRunning() || isStale()) return;
      const chunk = messages.slice(start, start + concurrency);
      // a batch handler takes the chunk in one call; one that failed for another reason than an outage, or a record
      // that is no event, sends each message the per-event way (retries, dead letter)
      const batchHandler = concurrency > 1 && !isDeadLetterTopic(batch.topic) ? subscription.batchHandler : undefined;
      await this.keepingMembership(heartbeat, async () => {
        if (!batchHandler || !(await this.handleChunk(group.name, subscription, batchHandler, batch.topic, chunk, heartbeat, hooks))) {
          await settleAll(chunk.map((message) => this.handleMessage(group, subscription, batch.topic, message, heartbeat, hooks)));
        }
      });
      resolveOffset(chunk[chunk.length - 1].offset);
      await heartbeat();
      await commitOffsetsIfNecessary(concurrency > 1 ? uncommittedOffsets() : undefined);
    }
    const last = batch.messages[batch.messages.length - 1];
    if (last && messages[messages.length - 1] !== last && isRunning() && !isStale()) {
      // the records after the last one handled were all of other types: acknowledged together
      resolveOffset(last.offset);
      await heartbeat();
      await commitOffsetsIfNecessary(concurrency > 1 ? uncommittedOffsets() : undefined);
    }
  }

  /** A chunk's events of the group's types, parsed, to its batch handler; false when a record is no event or the handler failed. */
  private async handleChunk(
    group: string,
    subscription: SubscribeOptions,
    handler: BatchEventHandler,
    topic: string,
    chunk: KafkaMessage[],
    heartbeat: () => Promise<void>,
    hooks: DeliveryHooks,
  ): Promise<boolean> {
    const types = typesOf(subscription);
    const envelopes: EventEnvelope[] = [];
    // the chunk holds only records whose type header the group takes, or that have none (handleBatch's takesType)
    for (const message of chunk) {
      const parsed = parseEnvelope(message.value);
      if ('error' in parsed) return false;
      if (types && !types.has(parsed.envelope.type)) continue;
      envelopes.push(parsed.envelope);
    }
    if (envelopes.length === 0) return true;
    return handleChunkWithRetries(handler, envelopes, { topic, group }, retryPolicy(subscription), (ms) => this.waitWithHeartbeat(ms, heartbeat), hooks);
  }

  private async handleMessage(
    group: Group,
    subscription: SubscribeOptions,
    topic: string,
    message: KafkaMessage,
    heartbeat: () => Promise<void>,
    hooks: DeliveryHooks,
  ): Promise<void> {
    const headers = readHeaders(message.headers);
    const types = typesOf(subscription);
    // Not a type this group takes: acknowledged without parsing (records without the header are parsed to see).
    if (types && headers.type !== undefined && !types.has(headers.type)) return;
    const parsed = parseEnvelope(message.value);

    let failure: HandlerFailure | undefined;
    if (!('error' in parsed) && types && !types.has(parsed.envelope.type)) return;
    // Heartbeat while backing off so a slow retry does not cost the group membership. If the heartbeat reports
    // a rebalance it throws: the message stays unacknowledged and the partition's next owner handles it.
    const wait = (ms: number) => this.waitWithHeartbeat(ms, heartbeat);
    const policy = retryPolicy(subscription);
    if ('error' in parsed) {
      failure = { error: parsed.error, attempts: 0 }; // unreadable: retrying cannot help
    } else {
      const context = { topic, group: group.name, deadLetter: readDeadLetter(headers) };
      failure = await handleWithRetries(subscription.handler, parsed.envelope, context, policy, wait, hooks);
    }
    if (!failure) return;

    const id = headers.id ?? '?';
    const sink = this.deadLetters;
    if (sink && !isDeadLetterTopic(topic)) {
      const record = {
        group: group.name,
        topic,
        envelope: 'error' in parsed ? null : parsed.envelope,
        raw: 'error' in parsed ? (message.value?.toString() ?? null) : null,
        error: failure.error,
        attempts: failure.attempts,
      };
      if (await retryWhileDown(() => sink.add(record), policy, wait, hooks)) {
        this.logger.error(`group ${group.name} gave up on ${id} from ${topic} after ${failure.attempts} attempts; kept in the dead-letter store: ${failure.error}`);
        return;
      }
    }
    if (isDeadLetterTopic(topic)) {
      this.logger.error(`group ${group.name} failed on dead letter ${id} from ${topic}; skipped: ${failure.error}`);
      return;
    }
    const dlq = deadLetterTopic(topic);
    this.logger.warn(`group ${group.name} gave up on ${id} after ${failure.attempts} attempts; sent to ${dlq}: ${failure.error}`);
    const deadLetter = { ...failure, originalTopic: topic, group: group.name, failedAt: new Date().toISOString() };
    // If this produce throws, the chunk throws: its offsets are not resolved and the chunk is fetched again.
    await this.producer.send({
      topic: dlq,
      acks: -1,
      compression: this.compression,
      messages: [{ key: message.key, value: message.value, headers: { ...headers, ...deadLetterHeaders(deadLetter) } }],
    });
  }

  /**
   * A group's offset was out of range of its partition's log and kafkajs is resetting it to the oldest retained record:
   * the records before that were never handled by this group. Counted per group and topic for alerting, and logged
   * as an error with the offsets (docs/decisions/0085).
   */
  private reportOffsetReset(entry: OffsetResetEntry): void {
    KafkaMetrics.offsetResets().inc({ group: entry.groupId, topic: entry.topic });
    const skipped = skippedByReset(entry);
    const range = entry.logStart === null ? 'the log range is unknown (the broker did not answer)' : `the log holds offsets ${entry.logStart} to ${entry.logEnd}`;
    const outcome =
      skipped === null ? 'records may have been skipped' : skipped > 0 ? `${skipped} records the group had not handled were deleted by the broker and are skipped` : 'no record is skipped (the offset was past the log end)';
    this.logger.error(
      `consumer group ${entry.groupId}: offset ${entry.offset ?? 'unknown'} of ${entry.topic} partition ${entry.partition} is out of range (${range}); reset to the oldest retained offset: ${outcome}`,
    );
  }

  /** A partition waits out an outage: one warning when it starts, one every 20 failed attempts, one when it ends. */
  private hooks(group: string, topic: string, running: () => boolean): DeliveryHooks {
    return {
      running,
      onOutage: (error, n) => {
        if (n === 1 || n % 20 === 0) this.logger.warn(`group ${group} on ${topic} paused (attempt ${n}), infrastructure unavailable: ${describeError(error)}`);
      },
      onRecovered: (n) => this.logger.warn(`group ${group} on ${topic} resumed after ${n} failed attempts`),
    };
  }

  override subscribedGroups(): string[] {
    return [...this.groups.keys()];
  }

  override async redeliver(group: string, topic: string, envelope: EventEnvelope): Promise<RedeliveryOutcome> {
    const subscription = this.groups.get(group)?.subscriptions.get(topic);
    if (!subscription) return { status: 'not-subscribed' };
    const hooks = this.hooks(group, topic, () => this.running);
    const failure = await handleWithRetries(subscription.handler, envelope, { topic, group }, retryPolicy(subscription), sleep, hooks);
    return failure ? { status: 'failed', ...failure } : { status: 'handled' };
  }

  /**
   * Heartbeats every `heartbeatIntervalMs` while a chunk's handlers run (docs/decisions/0106). kafkajs has no heartbeat
   * thread: a member heartbeats only between chunks, so a chunk that took longer than the session timeout (a group
   * commit of 64 status answers of 1,000 statuses each, on a loaded machine) ended the member's session mid-chunk. The
   * broker then refused the chunk's offset commit, the rejoined member fetched the same chunk again, took as long again,
   * and lost its session again: the group never moved past that chunk. A heartbeat that reports a rebalance stops the
   * beats (the heartbeat after the chunk throws it, and kafkajs rejoins); the handlers are not interrupted.
   */
  private async keepingMembership(heartbeat: () => Promise<void>, work: () => Promise<void>): Promise<void> {
    const step = this.options.consumer?.heartbeatIntervalMs ?? 3000;
    let beat: Promise<void> | undefined;
    let rebalancing = false;
    const timer = setInterval(() => {
      if (beat || rebalancing) return;
      beat = heartbeat()
        .catch(() => {
          rebalancing = true;
        })
        .finally(() => {
          beat = undefined;
        });
    }, step);
    try {
      await work();
    } finally {
      clearInterval(timer);
      await beat;
    }
  }

  private async waitWithHeartbeat(ms: number, heartbeat: () => Promise<void>): Promise<void> {
    const step = this.options.consumer?.heartbeatIntervalMs ?? 3000;
    for (let left = ms; left > 0; left -= step) {
      await sleep(Math.min(left, step));
      await heartbeat();
    }
  }

  /** Only with `createTopics`: the admin API is optional (the test broker and some managed clusters lack it). */
  private async ensureTopics(topics: string[]): Promise<void> {
    if (!this.options.createTopics) return;
    const missing = topics.filter((topic) => !this.knownTopics.has(topic));
    if (missing.length === 0) return;
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const numPartitions = this.options.partitions ?? 4;
      await admin.createTopics({ waitForLeaders: true, topics: missing.map((topic) => ({ topic, numPartitions })) });
      missing.forEach((topic) => this.knownTopics.add(topic));
    } finally {
      await admin.disconnect();
    }
  }
}

const typeSets = new WeakMap<SubscribeOptions, ReadonlySet<string> | null>();

/** A subscription's `types` as a set, built once; null = every type. */
function typesOf(subscription: SubscribeOptions): ReadonlySet<string> | null {
  let set = typeSets.get(subscription);
  if (set === undefined) {
    set = subscription.types ? new Set(subscription.types) : null;
    typeSets.set(subscription, set);
  }
  return set;
}

/** Whether a record may be of a type in `types`: its type header says so, or it has none (then it is parsed to see). */
function takesType(types: ReadonlySet<string>, headers: IHeaders | undefined): boolean {
  const type = headers?.type;
  if (type === undefined) return true;
  // as readHeaders reads it: the last value of a repeated header
  return types.has((Array.isArray(type) ? type[type.length - 1] : type).toString());
}

function readHeaders(headers: IHeaders | undefined): Headers {
  const result: Headers = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    result[name] = last.toString();
  }
  return result;
}

function parseEnvelope(value: Buffer | null): { envelope: EventEnvelope } | { error: string } {
  if (!value) return { error: 'empty record value' };
  try {
    const envelope = JSON.parse(value.toString()) as Partial<EventEnvelope> | null;
    if (typeof envelope?.id !== 'string' || typeof envelope.type !== 'string') return { error: 'record value is not an event envelope' };
    return { envelope: envelope as EventEnvelope };
  } catch (error) {
    return { error: `record value is not JSON: ${String(error)}` };
  }
}
