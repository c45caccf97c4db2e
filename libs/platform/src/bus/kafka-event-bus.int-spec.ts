import { randomBytes } from 'node:crypto';
import { deadLetterTopic, type EventEnvelope } from '@switchboard/contracts';
import { Kafka, logLevel, type Consumer, type Producer } from 'kafkajs';
import { kafkaTestBrokers } from '../testing/database';
import { sleep } from './delivery';
import type { DeliveryContext, EventHandler, OutgoingEvent } from './event-bus';
import { TransientError } from './failures';
import { KafkaEventBus } from './kafka-event-bus';
import { kafkaBrokerClass, type KafkaBroker } from './kafka-sync-group';
import { silentLogger, testEvent, waitFor } from './test-support';

// Against librdkafka's mock cluster (started by the jest global setup): no admin API, no idempotent producer,
// topics auto-created with 4 partitions. Every test uses its own topic and group names.

const unique = (name: string): string => `sb.test.${name}.${randomBytes(4).toString('hex')}`;

describe('KafkaEventBus', () => {
  const buses: KafkaEventBus[] = [];

  function newBus(logger = silentLogger()): KafkaEventBus {
    const bus = new KafkaEventBus({
      clientId: 'kafka-bus-test',
      brokers: kafkaTestBrokers(),
      logLevel: logLevel.NOTHING,
      logger,
      // The mock broker rebalances quickly; short timeouts keep joins and rebalances to a few seconds.
      consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 200, rebalanceTimeoutMs: 3000, maxWaitTimeMs: 100 },
    });
    buses.push(bus);
    return bus;
  }

  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.stop()));
  });

  function recorder(): { handler: EventHandler; events: EventEnvelope[]; contexts: DeliveryContext[]; ids: () => string[] } {
    const events: EventEnvelope[] = [];
    const contexts: DeliveryContext[] = [];
    return {
      events,
      contexts,
      ids: () => events.map((e) => e.id),
      handler: async (event, context) => {
        events.push(event);
        contexts.push(context);
      },
    };
  }

  const idsOfKey = (events: EventEnvelope[], key: string): string[] => events.filter((e) => e.key === key).map((e) => e.id);

  it('publishes events and delivers them to a subscriber, in order per key', async () => {
    const topic = unique('basic');
    const group = unique('group');
    const bus = newBus();
    const received = recorder();
    await bus.subscribe({ group, topics: [topic], handler: received.handler });
    await bus.start();
    const events = ['a', 'b', 'a', 'b', 'a'].map((key, n) => testEvent(topic, key, { n }));

    await bus.publish(events);
    await waitFor(() => received.events.length >= events.length);

    const { topic: _topic, ...envelope } = events[0];
    expect(received.events).toContainEqual(envelope);
    expect(received.events).toHaveLength(events.length);
    for (const key of ['a', 'b']) expect(idsOfKey(received.events, key)).toEqual(idsOfKey(events, key));
    expect(received.contexts[0]).toEqual({ topic, group, attempt: 1 });
  });

  it('says its consumer groups joined only once each has joined (readiness waits for it)', async () => {
    const bus = newBus();
    const [a, b] = [unique('ready-a'), unique('ready-b')];
    await bus.subscribe({ group: a, topics: [unique('ready-topic')], handler: async () => undefined });
    await bus.subscribe({ group: b, topics: [unique('ready-topic')], handler: async () => undefined });
    expect(bus.consumersJoined()).toEqual({ joined: false, waiting: [a, b] });
    await bus.start();
    await waitFor(() => bus.consumersJoined().joined, 50);
    expect(bus.consumersJoined()).toEqual({ joined: true, waiting: [] });
    await bus.stop();
    expect(bus.consumersJoined().joined).toBe(false);
  });

  it('hands a group only the types it takes', async () => {
    const topic = unique('types');
    const group = unique('group');
    const bus = newBus();
    const received = recorder();
    await bus.subscribe({ group, topics: [topic], types: ['thing.kept'], handler: received.handler });
    await bus.start();
    const kept = ['a', 'b'].map((key) => ({ ...testEvent(topic, key), type: 'thing.kept' }));
    const other = ['a', 'b', 'c'].map((key) => ({ ...testEvent(topic, key), type: 'thing.other' }));
    const marker = { ...testEvent(topic, 'a'), type: 'thing.kept' };

    await bus.publish([kept[0], other[0], other[1], kept[1], other[2]]);
    await bus.publish([marker]);
    await waitFor(() => received.events.length >= 3);
    await sleep(300);

    expect(received.events.map((e) => e.id).sort()).toEqual([...kept, marker].map((e) => e.id).sort());
    expect(received.events.every((e) => e.type === 'thing.kept')).toBe(true);
  });

  it('acknowledges the records of types a group does not take together, not a chunk at a time (one commit per fetched batch, not per 4 records)', async () => {
    const topic = unique('skipped');
    const group = unique('group');
    const bus = newBus();
    const received = recorder();
    await bus.subscribe({ group, topics: [topic], types: ['thing.kept'], concurrency: 4, handler: received.handler });
    await bus.start();
    const consumer = (bus as unknown as { groups: Map<string, { consumer?: Consumer }> }).groups.get(group)?.consumer;
    if (!consumer) throw new Error('the group has no consumer after start');
    let commits = 0;
    consumer.on(consumer.events.REQUEST, (e: { payload: { apiName: string } }) => {
      if (e.payload.apiName === 'OffsetCommit') commits++;
    });
    // one key: one partition, 400 records of another type (a topic's other traffic) before the one this group takes
    const others = Array.from({ length: 400 }, (_, n) => ({ ...testEvent(topic, 'one-key', { n }), type: 'thing.other' }));
    const kept = { ...testEvent(topic, 'one-key'), type: 'thing.kept' };
    await bus.publish([...others, kept, ...others.slice(0, 100).map((e) => ({ ...e, id: testEvent(topic, 'one-key').id }))]);
    await waitFor(() => received.events.length >= 1);
    await sleep(300);
    expect(received.ids()).toEqual([kept.id]);
    // a chunk of 4 at a time was 100 heartbeats and commits before the record the group takes
    if (commits >= 25) throw new Error(`${commits} offset commits for 501 records`);
    // and the record handled is committed with what was skipped around it: a new member starts after them
    await bus.stop();
    const again = recorder();
    const next = newBus();
    await next.subscribe({ group, topics: [topic], types: ['thing.kept'], concurrency: 4, handler: again.handler });
    await next.start();
    const marker = { ...testEvent(topic, 'one-key'), type: 'thing.kept' };
    await next.publish([marker]);
    await waitFor(() => again.ids().includes(marker.id));
    expect(again.ids()).toEqual([marker.id]);
  });

  it('gives every consumer group its own copy of each event', async () => {
    const topic = unique('groups');
    const bus = newBus();
    const first = recorder();
    const second = recorder();
    await bus.subscribe({ group: unique('first'), topics: [topic], handler: first.handler });
    await bus.subscribe({ group: unique('second'), topics: [topic], handler: second.handler });
    await bus.start();
    const events = [testEvent(topic, 'a'), testEvent(topic, 'b'), testEvent(topic, 'c')];
    const ids = events.map((e) => e.id).sort();

    await bus.publish(events);
    await waitFor(() => first.events.length >= 3 && second.events.length >= 3);

    expect(first.ids().sort()).toEqual(ids);
    expect(second.ids().sort()).toEqual(ids);
  });

  it('resumes from the committed offset after a restart: nothing handled twice, nothing lost', async () => {
    const topic = unique('resume');
    const group = unique('group');
    const keys = ['k1', 'k2', 'k3'];
    const before = keys.flatMap((key) => [testEvent(topic, key), testEvent(topic, key)]);
    const whileDown = keys.flatMap((key) => [testEvent(topic, key), testEvent(topic, key)]);

    const firstRun = recorder();
    const consumer1 = newBus();
    await consumer1.subscribe({ group, topics: [topic], handler: firstRun.handler });
    await consumer1.start();
    await consumer1.publish(before);
    await waitFor(() => firstRun.events.length >= before.length);
    await consumer1.stop();

    await newBus().publish(whileDown);

    const secondRun = recorder();
    const consumer2 = newBus();
    await consumer2.subscribe({ group, topics: [topic], handler: secondRun.handler });
    await consumer2.start();
    await waitFor(() => whileDown.every((e) => secondRun.ids().includes(e.id)));

    // A key's events share a partition, so a redelivered old event would have come before that key's new ones.
    expect(firstRun.ids().sort()).toEqual(before.map((e) => e.id).sort());
    expect(secondRun.ids().sort()).toEqual(whileDown.map((e) => e.id).sort());
  });

  it('starts a group that takes over from former groups where the slowest of them left each partition: nothing skipped, no replay from the start', async () => {
    const topic = unique('takeover');
    const [slow, fast, merged] = [unique('slow'), unique('fast'), unique('merged')];
    const keys = ['k1', 'k2', 'k3'];
    const batch = () => keys.flatMap((key) => [testEvent(topic, key), testEvent(topic, key)]);
    const [handledByBoth, handledByFastOnly, afterBoth] = [batch(), batch(), batch()];
    const runUntil = async (group: string, events: OutgoingEvent[]) => {
      const run = recorder();
      const bus = newBus();
      await bus.subscribe({ group, topics: [topic], handler: run.handler });
      await bus.start();
      await waitFor(() => events.every((e) => run.ids().includes(e.id)));
      await bus.stop();
    };
    await newBus().publish(handledByBoth);
    await runUntil(slow, handledByBoth);
    await newBus().publish(handledByFastOnly);
    await runUntil(fast, [...handledByBoth, ...handledByFastOnly]);
    await newBus().publish(afterBoth);

    const logger = silentLogger();
    const run = recorder();
    const bus = newBus(logger);
    await bus.subscribe({ group: merged, topics: [topic], handler: run.handler, formerGroups: { [topic]: [fast, slow] } });
    await bus.start();
    await waitFor(() => afterBoth.every((e) => run.ids().includes(e.id)));
    // what the slow group had not handled is read again (the fast one's share a replay), nothing the slow one had done
    expect(run.ids().sort()).toEqual([...handledByFastOnly, ...afterBoth].map((e) => e.id).sort());
    expect(logger.lines.some((l) => l.includes(`group ${merged} starts ${topic} where ${fast}, ${slow} left it`))).toBe(true);
    await bus.stop();

    // once it has committed offsets of its own, a restart takes them, not the former groups' again
    const more = batch();
    await newBus().publish(more);
    const again = recorder();
    const restarted = newBus();
    await restarted.subscribe({ group: merged, topics: [topic], handler: again.handler, formerGroups: { [topic]: [fast, slow] } });
    await restarted.start();
    await waitFor(() => more.every((e) => again.ids().includes(e.id)));
    expect(again.ids().sort()).toEqual(more.map((e) => e.id).sort());
  });

  it('keeps its membership through chunks longer than the session timeout: each is committed once and the events after them are handled', async () => {
    // Dispatch's status answers made campaigns' chunks last longer than the 6 s session (docs/decisions/0106): the
    // member lost its session mid-chunk, the chunks' commits were refused, and it fetched and handled the same chunks
    // again after rejoining, as long again, for ever.
    const topic = unique('long-chunk');
    const group = unique('group');
    const bus = new KafkaEventBus({
      clientId: 'kafka-bus-test',
      brokers: kafkaTestBrokers(),
      logLevel: logLevel.NOTHING,
      logger: silentLogger(),
      consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 200, rebalanceTimeoutMs: 3000, maxWaitTimeMs: 100, partitionsConsumedConcurrently: 4 },
    });
    buses.push(bus);
    const handled = new Map<string, number>();
    // every partition gets slow events (7 to 13 s, longer than the session), then an event after them
    const slow = Array.from({ length: 16 }, (_, i) => testEvent(topic, `k${i}`, { slowMs: 7000 + (i % 4) * 2000 }));
    const after = Array.from({ length: 16 }, (_, i) => testEvent(topic, `k${i}`));
    await bus.subscribe({
      group,
      topics: [topic],
      concurrency: 64,
      handler: async (event) => {
        handled.set(event.id, (handled.get(event.id) ?? 0) + 1);
        const ms = (event.data as { slowMs?: number }).slowMs;
        if (ms) await sleep(ms);
      },
    });
    await bus.start();
    await waitFor(() => bus.consumersJoined().joined, 50);
    await bus.publish(slow);
    await waitFor(() => slow.every((e) => handled.has(e.id)), 50);
    await bus.publish(after);

    // without heartbeats during a chunk, the slow chunks are handled again after the member rejoins
    await waitFor(() => after.every((e) => handled.has(e.id)) || [...handled.values()].some((n) => n > 1), 100);
    expect([...slow, ...after].map((e) => handled.get(e.id) ?? 0)).toEqual([...slow, ...after].map(() => 1));
  });

  it('splits partitions between two members of a group after a rebalance, handling every event once', async () => {
    const topic = unique('rebalance');
    const group = unique('group');
    const handledBy = new Map<string, string[]>();
    const member = (name: string): EventHandler => async (event) => {
      handledBy.set(event.id, [...(handledBy.get(event.id) ?? []), name]);
    };
    const byMember = (name: string) => [...handledBy.values()].filter((members) => members.includes(name)).length;
    const published: OutgoingEvent[] = [];
    let wave = 0;
    const publishWave = async (bus: KafkaEventBus) => {
      const events = Array.from({ length: 16 }, (_, i) => testEvent(topic, `key-${wave}-${i}`));
      wave++;
      await bus.publish(events);
      published.push(...events);
    };

    const a = newBus();
    await a.subscribe({ group, topics: [topic], handler: member('a') });
    await a.start();
    await publishWave(a);
    await waitFor(() => byMember('a') >= published.length);

    // The second member joins; keep events flowing until it has been given partitions and handled some.
    const b = newBus();
    await b.subscribe({ group, topics: [topic], handler: member('b') });
    await b.start();
    while (byMember('b') === 0) {
      await publishWave(a);
      await waitFor(() => handledBy.size >= published.length);
    }

    expect(byMember('a')).toBeGreaterThan(0);
    expect(published.map((e) => handledBy.get(e.id)?.length)).toEqual(published.map(() => 1));
    expect(handledBy.size).toBe(published.length);
  });

  it('a member whose SyncGroup comes after the leader completed the sync rejoins and gets its partitions, without a crash', async () => {
    // librdkafka's mock completes a sync with the leader's SyncGroup and refuses a later follower's as INVALID_REQUEST
    // (a starved replica on a loaded machine): the follower's first SyncGroup of this group is held until then.
    const topic = unique('late-sync');
    const group = unique('group');
    const Broker = kafkaBrokerClass();
    const syncGroup = Broker.prototype.syncGroup;
    const refused: string[] = [];
    let held = false;
    Broker.prototype.syncGroup = async function (this: InstanceType<typeof Broker>, request: Parameters<KafkaBroker['syncGroup']>[0]) {
      if (request.groupId !== group || request.groupAssignment.length > 0 || held) return syncGroup.call(this, request);
      held = true;
      await sleep(1500);
      return syncGroup.call(this, request).catch((e: unknown) => {
        refused.push((e as { type?: string }).type ?? String(e));
        throw e;
      });
    };
    const handledBy = new Map<string, string[]>();
    const member = (name: string): EventHandler => async (event) => {
      handledBy.set(event.id, [...(handledBy.get(event.id) ?? []), name]);
    };
    const byMember = (name: string) => [...handledBy.values()].filter((members) => members.includes(name)).length;
    const published: OutgoingEvent[] = [];
    try {
      const a = newBus();
      await a.subscribe({ group, topics: [topic], handler: member('a') });
      await a.start();
      const logB = silentLogger();
      const b = newBus(logB);
      await b.subscribe({ group, topics: [topic], handler: member('b') });
      await b.start();
      // events on every partition until the late member has handled some
      for (let wave = 0; byMember('b') === 0; wave++) {
        const events = Array.from({ length: 16 }, (_, i) => testEvent(topic, `key-${wave}-${i}`));
        await a.publish(events);
        published.push(...events);
        await waitFor(() => handledBy.size >= published.length);
      }
      // the late SyncGroup was refused as the mock refuses it, and the member rejoined in place: no crash, no new consumer
      expect(refused).toEqual(['REBALANCE_IN_PROGRESS']);
      expect(logB.lines.filter((l) => /crashed|restarting/.test(l))).toEqual([]);
      expect(published.map((e) => handledBy.get(e.id)?.length)).toEqual(published.map(() => 1));
    } finally {
      Broker.prototype.syncGroup = syncGroup;
    }
  });

  it('dead-letters an event after its retries, with the error in headers, and moves on to the next one', async () => {
    const topic = unique('dlq');
    const group = unique('group');
    const bus = newBus();
    const attempts: number[] = [];
    const handled: number[] = [];
    await bus.subscribe({
      group,
      topics: [topic],
      maxRetries: 2,
      retryBackoffMs: 10,
      handler: async (event, ctx) => {
        const { n } = event.data as { n: number };
        if (n === 1) {
          attempts.push(ctx.attempt);
          throw new Error('cannot handle this one');
        }
        handled.push(n);
      },
    });
    await bus.start();
    const events = [0, 1, 2].map((n) => testEvent(topic, 'same-key', { n }));

    await bus.publish(events);
    await waitFor(() => handled.length >= 2);
    expect(handled).toEqual([0, 2]);
    expect(attempts).toEqual([1, 2, 3]);

    // Read the dead-letter topic with a plain kafkajs consumer: this is the wire format operators see.
    const kafka = new Kafka({ clientId: 'dlq-reader', brokers: kafkaTestBrokers(), logLevel: logLevel.NOTHING });
    const reader = kafka.consumer({ groupId: unique('dlq-reader'), sessionTimeout: 6000, heartbeatInterval: 200, rebalanceTimeout: 3000, maxWaitTimeInMs: 100 });
    const dead: Array<{ key: string; value: EventEnvelope; headers: Record<string, string> }> = [];
    try {
      await reader.connect();
      await reader.subscribe({ topic: deadLetterTopic(topic), fromBeginning: true });
      await reader.run({
        eachMessage: async ({ message }) => {
          const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
          dead.push({ key: String(message.key), value: JSON.parse(String(message.value)) as EventEnvelope, headers });
        },
      });
      await waitFor(() => dead.length >= 1);
    } finally {
      await reader.disconnect();
    }

    expect(dead).toHaveLength(1);
    expect(dead[0].key).toBe('same-key');
    expect(dead[0].value.id).toBe(events[1].id);
    expect(dead[0].headers).toMatchObject({
      id: events[1].id,
      type: events[1].type,
      version: '1',
      error: 'Error: cannot handle this one',
      attempts: '3',
      originalTopic: topic,
      group,
    });
  });

  describe('with concurrency', () => {
    /** Events of one key: one partition, so a subscription's parallelism within a partition is all there is. */
    const numbered = (topic: string, count: number) => Array.from({ length: count }, (_, n) => testEvent(topic, 'one-key', { n }));
    const nOf = (event: EventEnvelope) => (event.data as { n: number }).n;
    const countOf = (list: number[], n: number) => list.filter((x) => x === n).length;

    /** Reads a dead-letter topic from the beginning with a plain kafkajs consumer until `count` records arrived. */
    async function readDeadLetters(topic: string, count: number): Promise<EventEnvelope[]> {
      const kafka = new Kafka({ clientId: 'dlq-reader', brokers: kafkaTestBrokers(), logLevel: logLevel.NOTHING });
      const reader = kafka.consumer({ groupId: unique('dlq-reader'), sessionTimeout: 6000, heartbeatInterval: 200, rebalanceTimeout: 3000, maxWaitTimeInMs: 100 });
      const dead: EventEnvelope[] = [];
      try {
        await reader.connect();
        await reader.subscribe({ topic: deadLetterTopic(topic), fromBeginning: true });
        await reader.run({ eachMessage: async ({ message }) => void dead.push(JSON.parse(String(message.value)) as EventEnvelope) });
        await waitFor(() => dead.length >= count);
        // A moment more, so that an unexpected extra record would be seen too.
        await sleep(300);
      } finally {
        await reader.disconnect();
      }
      return dead;
    }

    /** Starts a fresh member of `group` and returns what it receives after a marker event: proof of what was committed. */
    async function deliveredAfterRestart(topic: string, group: string): Promise<number[]> {
      const rerun = recorder();
      const bus = newBus();
      await bus.subscribe({ group, topics: [topic], concurrency: 4, handler: rerun.handler });
      await bus.start();
      const marker = testEvent(topic, 'one-key', { n: -1 });
      await bus.publish([marker]);
      await waitFor(() => rerun.ids().includes(marker.id));
      return rerun.events.map(nOf).filter((n) => n !== -1);
    }

    it('with concurrency 1 handles a partition one event at a time, in order', async () => {
      const topic = unique('serial');
      const bus = newBus();
      const order: number[] = [];
      let running = 0;
      let maxRunning = 0;
      await bus.subscribe({
        group: unique('group'),
        topics: [topic],
        concurrency: 1,
        handler: async (event) => {
          maxRunning = Math.max(maxRunning, ++running);
          await sleep(2);
          running--;
          order.push(nOf(event));
        },
      });
      await bus.start();

      await bus.publish(numbered(topic, 12));
      await waitFor(() => order.length >= 12);

      expect(maxRunning).toBe(1);
      expect(order).toEqual(Array.from({ length: 12 }, (_, n) => n));
    });

    it('runs up to N handlers of a partition at once and never more, each event once', async () => {
      const topic = unique('chunks');
      const bus = newBus();
      const handled: number[] = [];
      let running = 0;
      let maxRunning = 0;
      await bus.subscribe({
        group: unique('group'),
        topics: [topic],
        concurrency: 4,
        handler: async (event) => {
          maxRunning = Math.max(maxRunning, ++running);
          await sleep(10);
          running--;
          handled.push(nOf(event));
        },
      });
      await bus.start();

      // One produce request: the 14 records reach the consumer in one fetched batch, cut into chunks 4, 4, 4, 2.
      await bus.publish(numbered(topic, 14));
      await waitFor(() => handled.length >= 14);
      await sleep(100);

      expect(maxRunning).toBe(4);
      expect([...handled].sort((a, b) => a - b)).toEqual(Array.from({ length: 14 }, (_, n) => n));
    });

    it('retries and dead-letters a failing event of a chunk, the others handled once, and commits the chunk', async () => {
      const topic = unique('chunk-dlq');
      const group = unique('group');
      const bus = newBus();
      const handled: number[] = [];
      const attempts: number[] = [];
      const events = numbered(topic, 8);
      await bus.subscribe({
        group,
        topics: [topic],
        concurrency: 4,
        maxRetries: 2,
        retryBackoffMs: 10,
        handler: async (event, ctx) => {
          if (nOf(event) === 1) {
            attempts.push(ctx.attempt);
            throw new Error('cannot handle this one');
          }
          handled.push(nOf(event));
        },
      });
      await bus.start();

      await bus.publish(events);
      const dead = await readDeadLetters(topic, 1);
      await waitFor(() => handled.length >= 7);
      await bus.stop();

      expect(attempts).toEqual([1, 2, 3]);
      expect(dead.map((e) => e.id)).toEqual([events[1].id]);
      expect([...handled].sort()).toEqual([0, 2, 3, 4, 5, 6, 7]);
      // Both chunks, the one with the dead letter included, were committed: a new member starts after them.
      expect(await deliveredAfterRestart(topic, group)).toEqual([]);
    });

    it('hands each chunk to the batch handler in one call, retries it whole through an outage, and commits it', async () => {
      const topic = unique('batch');
      const group = unique('group');
      const bus = newBus();
      const calls: number[][] = [];
      const single: number[] = [];
      await bus.subscribe({
        group,
        topics: [topic],
        concurrency: 4,
        maxRetries: 0,
        retryBackoffMs: 5,
        maxBackoffMs: 20,
        handler: async (event) => void single.push(nOf(event)),
        batchHandler: async (events, ctx) => {
          expect(ctx).toEqual({ topic, group });
          calls.push(events.map(nOf));
          // the database is away for the first three attempts: pause and retry, never the per-event path
          if (calls.length <= 3) throw new TransientError('database away');
        },
      });
      await bus.start();

      // one produce request: one fetched batch, cut into chunks of 4, 4, 2
      await bus.publish(numbered(topic, 10));
      await waitFor(() => new Set(calls.slice(3).flat()).size >= 10);
      await bus.stop();

      expect(single).toEqual([]);
      // the first chunk four times (three outages), then each chunk once, in order
      expect(calls.slice(0, 4)).toEqual([calls[0], calls[0], calls[0], calls[0]]);
      expect(calls.slice(3).flat()).toEqual(Array.from({ length: 10 }, (_, n) => n));
      // every chunk was committed: a new member starts after them
      expect(await deliveredAfterRestart(topic, group)).toEqual([]);
    });

    it('hands a chunk whose batch failed for its own reason to the per-event handler: only the bad event is dead-lettered', async () => {
      const topic = unique('batch-dlq');
      const group = unique('group');
      const bus = newBus();
      const handled: number[] = [];
      const events = numbered(topic, 8);
      await bus.subscribe({
        group,
        topics: [topic],
        concurrency: 4,
        maxRetries: 1,
        retryBackoffMs: 10,
        handler: async (event) => {
          if (nOf(event) === 5) throw new Error('cannot handle this one');
          handled.push(nOf(event));
        },
        batchHandler: async (batch) => {
          if (batch.some((e) => nOf(e) === 5)) throw new Error('a bad event in the batch');
          handled.push(...batch.map(nOf));
        },
      });
      await bus.start();

      await bus.publish(events);
      const dead = await readDeadLetters(topic, 1);
      await waitFor(() => handled.length >= 7);
      await bus.stop();

      expect(dead.map((e) => e.id)).toEqual([events[5].id]);
      expect([...handled].sort()).toEqual([0, 1, 2, 3, 4, 6, 7]);
      expect(await deliveredAfterRestart(topic, group)).toEqual([]);
    });

    it('does not acknowledge a chunk whose dead-letter produce failed: the chunk is delivered again, earlier chunks are not', async () => {
      const topic = unique('dlq-down');
      const group = unique('group');
      const bus = newBus();
      const calls: number[] = [];
      const producer = (bus as unknown as { producer: Producer }).producer;
      const send = producer.send.bind(producer);
      let dlqFailures = 0;
      jest.spyOn(producer, 'send').mockImplementation(async (record) => {
        if (record.topic === deadLetterTopic(topic) && dlqFailures < 2) {
          dlqFailures++;
          throw new Error('dead-letter topic unavailable');
        }
        return send(record);
      });
      await bus.subscribe({
        group,
        topics: [topic],
        concurrency: 4,
        maxRetries: 0,
        handler: async (event) => {
          calls.push(nOf(event));
          if (nOf(event) === 5) throw new Error('poison');
        },
      });
      await bus.start();

      await bus.publish(numbered(topic, 8));
      const dead = await readDeadLetters(topic, 1);
      await waitFor(() => countOf(calls, 7) >= 3);
      await bus.stop();

      expect(dlqFailures).toBe(2);
      expect(dead).toHaveLength(1);
      // First chunk once; the second chunk three times: twice given back by a failed dead-letter produce.
      for (const n of [0, 1, 2, 3]) expect(countOf(calls, n)).toBe(1);
      for (const n of [4, 5, 6, 7]) expect(countOf(calls, n)).toBe(3);
      expect(await deliveredAfterRestart(topic, group)).toEqual([]);
    });

    it('after a consumer dies mid-chunk, delivers that chunk again to the next member, and not the finished chunks', async () => {
      const topic = unique('takeover');
      const group = unique('group');
      // The broker's minimum session timeout (6 s) bounds how soon the coordinator gives up on the stuck member.
      const first = newBus();
      const firstRun: number[] = [];
      const stuck = { release: () => undefined as void };
      const stuckUntil = new Promise<void>((resolve) => (stuck.release = resolve));
      await first.subscribe({
        group,
        topics: [topic],
        concurrency: 4,
        handler: async (event) => {
          // The last event of the second chunk hangs, like a handler of a process that is about to die.
          if (nOf(event) === 7) await stuckUntil;
          firstRun.push(nOf(event));
        },
      });
      await first.start();
      await first.publish(numbered(topic, 8));
      await waitFor(() => firstRun.length >= 7);

      // The stuck member stops heartbeating; the coordinator gives its partitions to the newcomer.
      try {
        expect(await deliveredAfterRestart(topic, group)).toEqual([4, 5, 6, 7]);
        expect([...firstRun].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
      } finally {
        stuck.release();
      }
    });
  });
});
