import { randomBytes } from 'node:crypto';
import type { EventEnvelope } from '@switchboard/contracts';
import { DataSource } from 'typeorm';
import { logLevel } from 'kafkajs';
import { EventBus, type OutgoingEvent, type SubscribeOptions } from '../bus/event-bus';
import { KafkaEventBus } from '../bus/kafka-event-bus';
import { silentLogger, testEvent, waitFor } from '../bus/test-support';
import { DeadLetterReplayer } from '../deadletter/replayer';
import { deadLetterTableSql } from '../deadletter/sql';
import { DeadLetterStore, typeormClient } from '../deadletter/store';
import { createTestDatabase, kafkaTestBrokers, type TestDatabase } from '../testing/database';
import { Outbox } from './outbox';
import { OutboxRelay, relayDeadLetterGroup } from './outbox-relay';
import { outboxTableSql } from './sql';

// Item 5 of issue 10: one event the broker can never take must not stall the relay, and a pass's events go out in
// publish calls under the broker's request limit.

const unique = (name: string): string => `sb.test.${name}.${randomBytes(4).toString('hex')}`;

/** The Kafka bus, recording the bytes of every publish call the relay makes. */
class MeasuredKafkaBus extends KafkaEventBus {
  readonly calls: number[] = [];
  override async publish(events: OutgoingEvent[]): Promise<void> {
    this.calls.push(events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify({ ...e, topic: undefined })), 0));
    await super.publish(events);
  }
}

/** A broker that refuses one record for good, the way kafkajs reports it (a non-retriable MESSAGE_TOO_LARGE). */
class RefusingBus extends EventBus {
  readonly published: OutgoingEvent[] = [];
  refuse = true;
  async publish(events: OutgoingEvent[]): Promise<void> {
    if (this.refuse && events.some((e) => (e.data as { poison?: boolean }).poison)) {
      const cause = Object.assign(new Error('The request included a message larger than the max message size the server will accept'), {
        name: 'KafkaJSProtocolError',
        type: 'MESSAGE_TOO_LARGE',
        retriable: false,
      });
      throw Object.assign(new Error(cause.message), { name: 'KafkaJSNonRetriableError', cause });
    }
    this.published.push(...events);
  }
  async subscribe(_options: SubscribeOptions): Promise<void> {}
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}

describe('OutboxRelay limits', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let store: DeadLetterStore;
  let schemaCount = 0;
  const stops: Array<() => Promise<unknown>> = [];

  const newSchema = async (): Promise<string> => {
    const schema = `big_${++schemaCount}`;
    await dataSource.query(`CREATE SCHEMA ${schema}`);
    await dataSource.query(outboxTableSql(schema));
    await dataSource.query(deadLetterTableSql(schema));
    return schema;
  };
  const add = (schema: string, events: OutgoingEvent[], packed = false) =>
    dataSource.transaction((m) => (packed ? Outbox.addPacked(m, schema, events) : Outbox.add(m, schema, events)));

  beforeAll(async () => {
    db = await createTestDatabase('relaylimits');
    dataSource = await new DataSource({ type: 'postgres', url: db.url }).initialize();
    store = new DeadLetterStore(typeormClient(dataSource));
  });
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });
  afterAll(async () => {
    await dataSource.destroy();
    await db.drop();
  });

  it('keeps flowing past an event over the broker limit on the Kafka mock cluster: the big one is in the dead-letter store, the rest delivered in order, every publish under the cap', async () => {
    const schema = await newSchema();
    const topic = unique('big');
    const bus = new MeasuredKafkaBus({
      clientId: 'relay-limits',
      brokers: kafkaTestBrokers(),
      logLevel: logLevel.NOTHING,
      logger: silentLogger(),
      consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 200, rebalanceTimeoutMs: 3000, maxWaitTimeMs: 100, maxBytesPerPartition: 4 << 20 },
    });
    stops.push(() => bus.stop());
    const received: EventEnvelope[] = [];
    await bus.subscribe({ group: unique('reader'), topics: [topic], handler: async (e) => void received.push(e) });
    await bus.start();

    // One key, so the order on the topic is the order in the outbox.
    const before = testEvent(topic, 'k', { n: 0 });
    const big = testEvent(topic, 'k', { n: 1, blob: 'x'.repeat(1_200_000) });
    const after = testEvent(topic, 'k', { n: 2 });
    // Four events of 300 kB: 1.2 MB together, over a 1 MiB request if sent at once.
    const medium = [3, 4, 5, 6].map((n) => testEvent(topic, 'k', { n, blob: 'y'.repeat(300_000) }));
    // A packed row of 3,000 small events, 1.1 MB as one row.
    const packed = Array.from({ length: 3000 }, (_, i) => testEvent(topic, 'k', { n: 7 + i, pad: 'z'.repeat(250) }));
    await add(schema, [before]);
    await add(schema, [big]);
    await add(schema, [after]);
    await add(schema, medium);
    await add(schema, packed, true);

    const logger = silentLogger();
    const relay = new OutboxRelay({ schema, dataSource, bus, logger, batchSize: 5000 });
    stops.push(() => relay.stop());
    await relay.flush();

    const expected = [before, after, ...medium, ...packed].map((e) => (e.data as { n: number }).n);
    await waitFor(() => received.length >= expected.length);
    expect(received.map((e) => (e.data as { n: number }).n)).toEqual(expected);
    expect(Math.max(...bus.calls)).toBeLessThanOrEqual(900_000);
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM ${schema}.outbox WHERE published_at IS NULL`)).toEqual([{ n: 0 }]);

    const letters = await store.list({ service: schema });
    expect(letters).toEqual([
      expect.objectContaining({ kind: 'publish', group: relayDeadLetterGroup(schema), topic, eventId: big.id, status: 'dead', error: expect.stringContaining('over the relay') }),
    ]);
    expect(relay.deadLettered).toBe(1);
    expect(logger.lines.some((l) => l.includes('ALERT') && l.includes(big.id))).toBe(true);
    // The big one's full content is kept, for a replay once the limit is raised.
    const detail = await store.get(letters[0].id);
    expect((JSON.parse(detail?.payload ?? '{}') as EventEnvelope).data).toEqual(big.data);
  });

  it('moves an event the broker refuses for good to the dead-letter store and publishes the events behind it', async () => {
    const schema = await newSchema();
    const bus = new RefusingBus();
    const events = [0, 1, 2, 3].map((n) => testEvent('t', `k${n}`, { n, poison: n === 1 }));
    await add(schema, events);
    const relay = new OutboxRelay({ schema, dataSource, bus, logger: silentLogger() });
    stops.push(() => relay.stop());

    expect(await relay.flush()).toBe(4);
    expect(bus.published.map((e) => (e.data as { n: number }).n)).toEqual([0, 2, 3]);
    const letters = await store.list({ service: schema });
    expect(letters).toEqual([expect.objectContaining({ eventId: events[1].id, error: expect.stringContaining('larger than the max message size'), kind: 'publish' })]);
    // Replayed after the broker's limit was raised: published, and marked so.
    bus.published.length = 0;
    bus.refuse = false;
    await store.requestReplay(letters[0].id);
    const replayer = new DeadLetterReplayer({ store, bus, logger: silentLogger() });
    expect(await replayer.replayOnce()).toBe(1);
    expect(bus.published.map((e) => e.id)).toEqual([events[1].id]);
    expect(await store.get(letters[0].id)).toEqual(expect.objectContaining({ status: 'replayed', replays: 1 }));
  });

  it('does not give up an event on an unknown publish failure: the rows stay for the next pass', async () => {
    const schema = await newSchema();
    const bus = new RefusingBus();
    bus.publish = () => Promise.reject(new Error('broker unavailable'));
    await add(schema, [testEvent('t', 'k')]);
    const relay = new OutboxRelay({ schema, dataSource, bus, logger: silentLogger() });
    await expect(relay.relayOnce()).rejects.toThrow('broker unavailable');
    expect(await store.list({ service: schema })).toEqual([]);
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM ${schema}.outbox WHERE published_at IS NULL`)).toEqual([{ n: 1 }]);
  });
});
