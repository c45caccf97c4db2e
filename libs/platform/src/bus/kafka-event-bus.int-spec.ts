import { randomBytes } from 'node:crypto';
import { deadLetterTopic, type EventEnvelope } from '@switchboard/contracts';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaTestBrokers } from '../testing/database';
import type { DeliveryContext, EventHandler, OutgoingEvent } from './event-bus';
import { KafkaEventBus } from './kafka-event-bus';
import { silentLogger, testEvent, waitFor } from './test-support';

// Against librdkafka's mock cluster (started by the jest global setup): no admin API, no idempotent producer,
// topics auto-created with 4 partitions. Every test uses its own topic and group names.

const unique = (name: string): string => `sb.test.${name}.${randomBytes(4).toString('hex')}`;

describe('KafkaEventBus', () => {
  const buses: KafkaEventBus[] = [];

  function newBus(): KafkaEventBus {
    const bus = new KafkaEventBus({
      clientId: 'kafka-bus-test',
      brokers: kafkaTestBrokers(),
      logLevel: logLevel.NOTHING,
      logger: silentLogger(),
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
});
