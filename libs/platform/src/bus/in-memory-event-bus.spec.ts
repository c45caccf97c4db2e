import { deadLetterTopic, type EventEnvelope } from '@switchboard/contracts';
import type { DeliveryContext } from './event-bus';
import { InMemoryEventBus } from './in-memory-event-bus';
import { silentLogger, testEvent, waitFor } from './test-support';

const TOPIC = 'switchboard.test';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('InMemoryEventBus', () => {
  let bus: InMemoryEventBus;
  let logger: ReturnType<typeof silentLogger>;

  beforeEach(() => {
    logger = silentLogger();
    bus = new InMemoryEventBus({ logger });
  });

  afterEach(() => bus.stop());

  it('delivers every event once to each subscribed consumer group', async () => {
    const seen: Record<string, string[]> = { billing: [], stats: [] };
    for (const group of Object.keys(seen)) {
      await bus.subscribe({ group, topics: [TOPIC], handler: async (e) => void seen[group].push(e.id) });
    }
    await bus.start();
    const events = [testEvent(TOPIC, 'a'), testEvent(TOPIC, 'b'), testEvent(TOPIC, 'c')];

    await bus.publish(events);
    await bus.drain();

    const ids = events.map((e) => e.id).sort();
    expect([...seen.billing].sort()).toEqual(ids);
    expect([...seen.stats].sort()).toEqual(ids);
  });

  it('delivers the envelope without its routing topic, as JSON would carry it, with the delivery context', async () => {
    const received: Array<[EventEnvelope, DeliveryContext]> = [];
    await bus.subscribe({ group: 'g', topics: [TOPIC], handler: async (e, ctx) => void received.push([e, ctx]) });
    await bus.start();
    const event = testEvent(TOPIC, 'a', { at: new Date('2030-01-01T00:00:00Z') });

    await bus.publish([event]);
    await bus.drain();

    const { topic: _topic, ...envelope } = event;
    expect(received).toEqual([[{ ...envelope, data: { at: '2030-01-01T00:00:00.000Z' } }, { topic: TOPIC, group: 'g', attempt: 1 }]]);
  });

  it('handles events of one key in publish order', async () => {
    const handled = new Map<string, number[]>();
    await bus.subscribe({
      group: 'g',
      topics: [TOPIC],
      handler: async (e) => {
        // Yield a key-dependent number of times so that, without ordering, later events would overtake earlier ones.
        const { n } = e.data as { n: number };
        for (let i = 0; i < (n * 7) % 5; i++) await new Promise(setImmediate);
        handled.set(e.key, [...(handled.get(e.key) ?? []), n]);
      },
    });
    await bus.start();
    const keys = ['k1', 'k2', 'k3'];
    const events = Array.from({ length: 30 }, (_, n) => testEvent(TOPIC, keys[n % keys.length], { n }));

    await bus.publish(events);
    await bus.drain();

    for (const [i, key] of keys.entries()) {
      expect(handled.get(key)).toEqual(Array.from({ length: 10 }, (_, j) => j * keys.length + i));
    }
  });

  it('lets other keys proceed while one key is busy', async () => {
    const release = deferred();
    const handled: string[] = [];
    await bus.subscribe({
      group: 'g',
      topics: [TOPIC],
      handler: async (e) => {
        if (e.key === 'slow') await release.promise;
        handled.push(e.key);
      },
    });
    await bus.start();
    const others = Array.from({ length: 20 }, (_, i) => testEvent(TOPIC, `fast-${i}`));

    await bus.publish([testEvent(TOPIC, 'slow'), ...others]);
    // Keys hash to lanes; with 20 other keys some land on a lane other than the slow key's.
    await waitFor(() => handled.length > 0);
    expect(handled).not.toContain('slow');

    release.resolve();
    await bus.drain();
    expect(handled).toHaveLength(21);
  });

  it('retries a failing handler, then dead-letters the event with the error, attempts and original topic', async () => {
    const attempts: number[] = [];
    const dead: Array<[EventEnvelope, DeliveryContext]> = [];
    await bus.subscribe({
      group: 'projector',
      topics: [TOPIC],
      maxRetries: 2,
      retryBackoffMs: 1,
      handler: async (_e, ctx) => {
        attempts.push(ctx.attempt);
        throw new Error('database is down');
      },
    });
    await bus.subscribe({ group: 'ops', topics: [deadLetterTopic(TOPIC)], handler: async (e, ctx) => void dead.push([e, ctx]) });
    await bus.start();
    const event = testEvent(TOPIC, 'a');

    await bus.publish([event]);
    await bus.drain();

    expect(attempts).toEqual([1, 2, 3]);
    expect(dead).toHaveLength(1);
    const [envelope, ctx] = dead[0];
    expect(envelope.id).toBe(event.id);
    expect(ctx.topic).toBe(`${TOPIC}.dlq`);
    expect(ctx.deadLetter).toEqual({
      error: 'Error: database is down',
      attempts: 3,
      originalTopic: TOPIC,
      group: 'projector',
      failedAt: expect.any(String),
    });
    expect(logger.lines.join('\n')).toContain(event.id);
  });

  it('does not dead-letter an event whose handler succeeds within the retry budget', async () => {
    let calls = 0;
    const dead: string[] = [];
    await bus.subscribe({
      group: 'g',
      topics: [TOPIC],
      maxRetries: 3,
      retryBackoffMs: 1,
      handler: async () => {
        if (++calls < 3) throw new Error('transient');
      },
    });
    await bus.subscribe({ group: 'ops', topics: [deadLetterTopic(TOPIC)], handler: async (e) => void dead.push(e.id) });
    await bus.start();

    await bus.publish([testEvent(TOPIC, 'a')]);
    await bus.drain();

    expect(calls).toBe(3);
    expect(dead).toEqual([]);
  });

  it('moves past a poison event: later events of the same key are still handled', async () => {
    const handled: number[] = [];
    const dead: number[] = [];
    await bus.subscribe({
      group: 'g',
      topics: [TOPIC],
      maxRetries: 1,
      retryBackoffMs: 1,
      handler: async (e) => {
        const { n } = e.data as { n: number };
        if (n === 1) throw new Error('poison');
        handled.push(n);
      },
    });
    await bus.subscribe({ group: 'ops', topics: [deadLetterTopic(TOPIC)], handler: async (e) => void dead.push((e.data as { n: number }).n) });
    await bus.start();

    await bus.publish([0, 1, 2, 3].map((n) => testEvent(TOPIC, 'same-key', { n })));
    await bus.drain();

    expect(handled).toEqual([0, 2, 3]);
    expect(dead).toEqual([1]);
  });

  it('with ack "handled", resolves publish only after every group handled the events', async () => {
    const acked = new InMemoryEventBus({ logger, ack: 'handled' });
    const gate = deferred();
    const handled: string[] = [];
    await acked.subscribe({ group: 'slow', topics: [TOPIC], handler: async (e) => { await gate.promise; handled.push(e.id); } });
    await acked.start();
    let resolved = false;
    const publishing = acked.publish([testEvent(TOPIC, 'a')]).then(() => (resolved = true));
    await new Promise((r) => setImmediate(r));
    expect(resolved).toBe(false);
    gate.resolve();
    await publishing;
    expect(handled).toHaveLength(1);
    await acked.stop();
  });

  it('holds events published before start() and delivers them once started', async () => {
    const seen: string[] = [];
    await bus.subscribe({ group: 'g', topics: [TOPIC], handler: async (e) => void seen.push(e.id) });
    const event = testEvent(TOPIC, 'a');

    await bus.publish([event]);
    await new Promise(setImmediate);
    expect(seen).toEqual([]);

    await bus.start();
    await bus.drain();
    expect(seen).toEqual([event.id]);
  });

  it('waits for in-flight handlers on stop()', async () => {
    const release = deferred();
    let finished = false;
    await bus.subscribe({
      group: 'g',
      topics: [TOPIC],
      handler: async () => {
        await release.promise;
        finished = true;
      },
    });
    await bus.start();
    await bus.publish([testEvent(TOPIC, 'a')]);
    await new Promise(setImmediate);

    let stopResolved = false;
    const stopped = bus.stop().then(() => (stopResolved = true));
    await new Promise(setImmediate);
    expect(stopResolved).toBe(false);

    release.resolve();
    await stopped;
    expect(finished).toBe(true);
  });

  it('refuses a second handler for the same group and topic', async () => {
    await bus.subscribe({ group: 'g', topics: [TOPIC], handler: async () => undefined });
    await expect(bus.subscribe({ group: 'g', topics: [TOPIC], handler: async () => undefined })).rejects.toThrow(/already subscribed/);
  });
});
