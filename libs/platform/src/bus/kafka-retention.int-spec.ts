import { randomBytes } from 'node:crypto';
import type { EventEnvelope } from '@switchboard/contracts';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaMetrics } from '../metrics/metrics';
import { kafkaTestBrokers } from '../testing/database';
import type { OutgoingEvent } from './event-bus';
import { KafkaEventBus, type KafkaCompression } from './kafka-event-bus';
import { silentLogger, testEvent, waitFor } from './test-support';

// Against librdkafka's mock cluster (started by the jest global setup). The mock keeps at most 5 MiB of record batches
// per partition (rdkafka_mock.c, hard-coded) and deletes the oldest batches beyond it: the retention these tests use.

const unique = (name: string): string => `sb.test.${name}.${randomBytes(4).toString('hex')}`;
const MOCK_RETENTION_BYTES = 5 * 1024 * 1024;

describe('KafkaEventBus and the broker’s retention', () => {
  const buses: KafkaEventBus[] = [];
  const kafka = new Kafka({ clientId: 'kafka-retention-test', brokers: kafkaTestBrokers(), logLevel: logLevel.NOTHING });

  function newBus(opts: { compression?: KafkaCompression; logger?: ReturnType<typeof silentLogger> } = {}): KafkaEventBus {
    const bus = new KafkaEventBus({
      clientId: 'kafka-retention-test',
      brokers: kafkaTestBrokers(),
      logLevel: logLevel.NOTHING,
      logger: opts.logger ?? silentLogger(),
      compression: opts.compression,
      consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 200, rebalanceTimeoutMs: 3000, maxWaitTimeMs: 100 },
    });
    buses.push(bus);
    return bus;
  }

  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.stop()));
  });

  /** Each partition's oldest retained offset and next offset, as the broker answers. */
  async function logRange(topic: string): Promise<Array<{ partition: number; low: number; high: number }>> {
    const admin = kafka.admin();
    await admin.connect();
    try {
      return (await admin.fetchTopicOffsets(topic)).map((p) => ({ partition: p.partition, low: Number(p.low), high: Number(p.high) })).sort((a, b) => a.partition - b.partition);
    } finally {
      await admin.disconnect();
    }
  }

  /** `count` events of one key (one partition), about `bytes` of data each, published `perCall` at a time (one batch each). */
  async function fill(bus: KafkaEventBus, topic: string, count: number, perCall: number, data: (n: number) => Record<string, unknown>): Promise<OutgoingEvent[]> {
    const all: OutgoingEvent[] = [];
    for (let n = 0; n < count; n += perCall) {
      const events = Array.from({ length: Math.min(perCall, count - n) }, (_, k) => testEvent(topic, 'one-key', data(n + k)));
      await bus.publish(events);
      all.push(...events);
    }
    return all;
  }

  /** Event-like JSON, as the platform's envelopes are: about 2 KB per event. */
  const messageLike = (n: number) => ({
    messages: Array.from({ length: 8 }, (_, k) => ({
      messageUuid: `${randomBytes(16).toString('hex')}`,
      accountId: '1',
      campaignId: '42',
      recipient: `+49151${String(10_000_000 + n * 8 + k)}`,
      body: `Hi Name${n * 8 + k}, our spring sale starts today!`,
      priceMicros: 70_000,
      currency: 'EUR',
    })),
  });

  it('compresses record batches with gzip by default, so a partition’s retention in bytes keeps several times more events', async () => {
    // 8 MiB of JSON events on one partition: more than the broker keeps uncompressed, a fraction of it compressed
    const [plain, gzipped] = [unique('plain'), unique('gzip')];
    const count = 5000;
    const sample = JSON.stringify(testEvent(plain, 'one-key', messageLike(0))).length;
    expect(sample * count).toBeGreaterThan(1.5 * MOCK_RETENTION_BYTES);

    await fill(newBus({ compression: 'none' }), plain, count, 200, messageLike);
    await fill(newBus(), gzipped, count, 200, messageLike);

    const [plainLog, gzipLog] = [await logRange(plain), await logRange(gzipped)];
    const written = (log: Array<{ high: number }>) => log.reduce((n, p) => n + p.high, 0);
    expect([written(plainLog), written(gzipLog)]).toEqual([count, count]);
    // uncompressed, the broker deleted the oldest batches; compressed, it keeps every event
    expect(plainLog.some((p) => p.low > 0)).toBe(true);
    expect(gzipLog.every((p) => p.low === 0)).toBe(true);
  }, 180_000);

  it('counts and logs a consumer group whose committed offset the broker deleted: group, topic, partition, the offsets and the records skipped', async () => {
    const topic = unique('reset');
    const group = unique('group');
    const handled: EventEnvelope[] = [];
    const handler = async (event: EventEnvelope) => {
      handled.push(event);
    };

    // the group reads the first event and commits past it
    const first = testEvent(topic, 'one-key');
    const before = newBus();
    await before.subscribe({ group, topics: [topic], handler });
    await before.start();
    await before.publish([first]);
    await waitFor(() => handled.length === 1);
    await before.stop();

    // while it is away, more than the broker keeps is written to the partition (incompressible, uncompressed)
    const filler = await fill(newBus({ compression: 'none' }), topic, 700, 20, () => ({ blob: randomBytes(7500).toString('base64') }));
    const [log] = (await logRange(topic)).filter((p) => p.high > 0);
    expect(log.low).toBeGreaterThan(1);
    const resetsBefore = await resetCount(group, topic);

    // back, the group's offset (1) is before the log's start: reset to the oldest retained record, reported
    const logger = silentLogger();
    const after = newBus({ logger });
    await after.subscribe({ group, topics: [topic], handler });
    await after.start();
    const last = filler[filler.length - 1].id;
    await waitFor(() => handled.some((e) => e.id === last), 50);

    expect(await resetCount(group, topic)).toBe(resetsBefore + 1);
    const errors = logger.lines.filter((l) => l.includes('out of range'));
    expect(errors).toEqual([
      `consumer group ${group}: offset 1 of ${topic} partition ${log.partition} is out of range (the log holds offsets ${log.low} to ${log.high}); reset to the oldest retained offset: ${log.low - 1} records the group had not handled were deleted by the broker and are skipped`,
    ]);
    // what the broker kept is handled after the reset, from its oldest record on (a rebalance may hand some over twice)
    expect(handled[1].id).toBe(filler[log.low - 1].id);
    expect([...new Set(handled.slice(1).map((e) => e.id))].sort()).toEqual(filler.slice(log.low - 1).map((e) => e.id).sort());
  }, 180_000);
});

async function resetCount(group: string, topic: string): Promise<number> {
  const metric = await KafkaMetrics.offsetResets().get();
  return metric.values.find((v) => v.labels.group === group && v.labels.topic === topic)?.value ?? 0;
}
