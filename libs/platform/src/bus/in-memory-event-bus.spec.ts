import { deadLetterTopic, type EventEnvelope } from '@switchboard/contracts';
import type { DeliveryContext, OutgoingEvent } from './event-bus';
import { TransientError } from './failures';
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

  it.each([
    ['copied', false],
    ['handed over (0194)', true],
  ])("keeps one group's writes into an event from every other group, its own retries and its dead letter (0142), published %s", async (_how, handOver) => {
    const seen: unknown[] = [];
    const writes: string[] = [];
    const tries = (label: string, write: () => void) => {
      try {
        write();
        writes.push(`${label}: written`);
      } catch (error) {
        writes.push(`${label}: ${error instanceof TypeError ? 'refused' : String(error)}`);
      }
    };
    // the writer changes the event in every way a handler could, then fails, so it is retried and dead-lettered
    await bus.subscribe({
      group: 'writer',
      topics: [TOPIC],
      maxRetries: 1,
      retryBackoffMs: 1,
      handler: async (e) => {
        seen.push(JSON.parse(JSON.stringify(e)));
        const data = e.data as { name: string; tags: string[]; nested: { n: number }; list: Array<{ v: number }> };
        tries('field', () => (data.name = 'changed'));
        tries('nested', () => (data.nested.n = 2));
        tries('push', () => data.tags.push('extra'));
        tries('sort', () => data.tags.sort());
        tries('in array', () => (data.list[0].v = 9));
        tries('delete', () => delete (data as Partial<typeof data>).name);
        tries('envelope', () => ((e as { key: string }).key = 'other'));
        throw new Error('handler failed');
      },
    });
    for (const group of ['reader', 'late-reader']) {
      await bus.subscribe({ group, topics: [TOPIC], handler: async (e) => void seen.push(JSON.parse(JSON.stringify(e))) });
    }
    await bus.subscribe({ group: 'ops', topics: [deadLetterTopic(TOPIC)], handler: async (e) => void seen.push(JSON.parse(JSON.stringify(e))) });
    await bus.start();
    const event = testEvent(TOPIC, 'a', { name: 'original', tags: ['b', 'a'], nested: { n: 1 }, list: [{ v: 1 }] });
    // handed over, the event is what JSON.parse makes (as the relay's are), and its data is delivered where it is
    const published = handOver ? (JSON.parse(JSON.stringify(event)) as typeof event) : event;

    await bus.publish([published], { handOver });
    await bus.drain();

    const { topic: _topic, ...envelope } = event;
    // writer twice (a retry), reader, late-reader, the dead letter: each saw the event as published
    expect(seen).toEqual([envelope, envelope, envelope, envelope, envelope]);
    expect(new Set(writes)).toEqual(new Set(['field', 'nested', 'push', 'sort', 'in array', 'delete', 'envelope'].map((w) => `${w}: refused`)));
    // and the publisher's own object is untouched too (handed over: frozen, so the publisher cannot change it either)
    expect(published.data).toEqual({ name: 'original', tags: ['b', 'a'], nested: { n: 1 }, list: [{ v: 1 }] });
    expect(Object.isFrozen(published.data)).toBe(handOver);
  });

  it('delivers handed-over events as a JSON record would carry them: what JSON changes (a Date, undefined, -0) is copied (0194)', async () => {
    const seen: EventEnvelope[] = [];
    await bus.subscribe({ group: 'g', topics: [TOPIC], handler: async (e) => void seen.push(e) });
    await bus.start();
    const plain = JSON.parse(JSON.stringify(testEvent(TOPIC, 'a', { list: [{ v: 1 }], text: 'x' }))) as OutgoingEvent;
    const odd = testEvent(TOPIC, 'b', { at: new Date(0), gone: undefined, zero: -0 });

    await bus.publish([plain, odd], { handOver: true });
    await bus.drain();

    expect(seen.map((e) => e.data)).toEqual([{ list: [{ v: 1 }], text: 'x' }, { at: '1970-01-01T00:00:00.000Z', zero: 0 }]);
    expect(seen[0].data).toBe(plain.data);
    expect(Object.keys(seen[1].data as object)).toEqual(['at', 'zero']);
    expect(Object.is((seen[1].data as { zero: number }).zero, 0)).toBe(true);
    expect((odd.data as { at: unknown }).at).toBeInstanceOf(Date);
    expect(Object.isFrozen(seen[1].data)).toBe(true);
    expect('topic' in seen[0]).toBe(false);
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

  it('lets go of a handled event while its lane stays busy with later ones (large events do not pile up)', async () => {
    const v8 = await import('node:v8');
    const vm = await import('node:vm');
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const seen: Array<WeakRef<object>> = [];
    const hold = deferred();
    await bus.subscribe({
      group: 'g',
      topics: [TOPIC],
      handler: async (e) => {
        seen.push(new WeakRef(e.data as object));
        if (seen.length === 10) await hold.promise;
      },
    });
    await bus.start();
    // one key, one lane: the tenth event holds it, two more wait behind it, so the lane's queue is never empty
    await bus.publish(Array.from({ length: 12 }, (_, n) => testEvent(TOPIC, 'k', { n, text: 'x'.repeat(100_000) })));
    try {
      await waitFor(() => seen.length === 10);
      await new Promise(setImmediate);
      gc();
      // the first eight are gone (the ninth may still sit in the lane's suspended loop)
      expect(seen.slice(0, 8).filter((r) => r.deref() !== undefined)).toHaveLength(0);
    } finally {
      hold.resolve();
      await bus.drain();
    }
    expect(seen).toHaveLength(12);
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

  it('with ack "handled", resolves a publish of many events to many groups only after the last delivery settled, a dead letter too', async () => {
    const acked = new InMemoryEventBus({ logger, ack: 'handled', partitions: 4 });
    const gate = deferred();
    const handled: string[] = [];
    await acked.subscribe({ group: 'fast', topics: [TOPIC], concurrency: 8, handler: async (e) => void handled.push(`fast:${(e.data as { n: number }).n}`) });
    await acked.subscribe({
      group: 'slow',
      topics: [TOPIC],
      maxRetries: 0,
      handler: async (e) => {
        const n = (e.data as { n: number }).n;
        if (n === 3) await gate.promise;
        if (n === 1) throw new Error('bad event');
        handled.push(`slow:${n}`);
      },
    });
    await acked.start();
    let resolved = false;
    const publishing = acked.publish([0, 1, 2, 3].map((n) => testEvent(TOPIC, `key-${n}`, { n }))).then(() => (resolved = true));
    // everything but the gated delivery settles (the bad one dead-lettered): publish still waits for that one
    for (let i = 0; i < 200 && handled.length < 7; i++) await new Promise((r) => setImmediate(r));
    expect([handled.length, resolved]).toEqual([6, false]);
    gate.resolve();
    await publishing;
    expect(handled.sort()).toEqual(['fast:0', 'fast:1', 'fast:2', 'fast:3', 'slow:0', 'slow:2', 'slow:3']);
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
  it('does not serialise events of topics nobody subscribes to', async () => {
    await bus.subscribe({ group: 'g', topics: [TOPIC], handler: async () => undefined });
    await bus.start();
    // JSON.stringify throws on a BigInt: reaching the serialiser shows as a rejected publish.
    const unserialisable = (topic: string) => testEvent(topic, 'a', { amount: BigInt(1) });

    await expect(bus.publish([unserialisable('switchboard.nobody-listens')])).resolves.toBeUndefined();
    await expect(bus.publish([unserialisable(TOPIC)])).rejects.toThrow(/BigInt/);
  });

  it('hands a group only the types it takes, and serialises nothing no group takes', async () => {
    const seen: Record<string, string[]> = { all: [], some: [] };
    await bus.subscribe({ group: 'all', topics: [TOPIC], handler: async (e) => void seen.all.push(e.type) });
    await bus.subscribe({ group: 'some', topics: [TOPIC], types: ['thing.kept'], handler: async (e) => void seen.some.push(e.type) });
    await bus.start();
    const kept = { ...testEvent(TOPIC, 'a'), type: 'thing.kept' };
    const other = { ...testEvent(TOPIC, 'b'), type: 'thing.other' };

    await bus.publish([kept, other]);
    await bus.drain();

    expect(seen.all.sort()).toEqual(['thing.kept', 'thing.other']);
    expect(seen.some).toEqual(['thing.kept']);

    const only = new InMemoryEventBus({ logger });
    await only.subscribe({ group: 'some', topics: [TOPIC], types: ['thing.kept'], handler: async () => undefined });
    await only.start();
    // a BigInt fails JSON.stringify: an event of a type nobody takes never reaches the serialiser
    await expect(only.publish([{ ...testEvent(TOPIC, 'c', { amount: BigInt(1) }), type: 'thing.other' }])).resolves.toBeUndefined();
    await expect(only.publish([{ ...testEvent(TOPIC, 'c', { amount: BigInt(1) }), type: 'thing.kept' }])).rejects.toThrow(/BigInt/);
    await only.stop();
  });

  it('refuses a concurrency that is not a positive integer', async () => {
    for (const concurrency of [0, -1, 1.5, Number.NaN]) {
      await expect(bus.subscribe({ group: `g${concurrency}`, topics: [TOPIC], concurrency, handler: async () => undefined })).rejects.toThrow(/concurrency/);
    }
  });

  describe('with concurrency', () => {
    /** One lane, so every event shares it whatever its key: concurrency is then the only source of parallelism. */
    let lane: InMemoryEventBus;

    beforeEach(() => {
      lane = new InMemoryEventBus({ logger, partitions: 1, ack: 'handled' });
    });

    /** Gates of the test's handlers, opened before stop() so that a failed assertion cannot leave stop() waiting. */
    const openAll: Array<() => void> = [];

    afterEach(async () => {
      openAll.splice(0).forEach((open) => open());
      await lane.stop();
    });

    /** A handler that records how many run at once and holds each event until the test releases it. */
    function gatedHandler() {
      const gates = new Map<number, ReturnType<typeof deferred>>();
      const state = { running: 0, maxRunning: 0, started: [] as number[], finished: [] as number[] };
      const gate = (n: number) => gates.get(n) ?? gates.set(n, deferred()).get(n)!;
      const handler = async (e: EventEnvelope) => {
        const { n } = e.data as { n: number };
        state.started.push(n);
        state.maxRunning = Math.max(state.maxRunning, ++state.running);
        await gate(n).promise;
        state.running--;
        state.finished.push(n);
      };
      const release = (...ns: number[]) => ns.forEach((n) => gate(n).resolve());
      openAll.push(() => gates.forEach((g) => g.resolve()));
      return { handler, state, release };
    }

    const numbered = (count: number, key = 'same-key') => Array.from({ length: count }, (_, n) => testEvent(TOPIC, key, { n }));
    const tick = () => new Promise((r) => setImmediate(r));

    it('keeps a long lane queue in order, with events published while it drains', async () => {
      const handled: number[] = [];
      await lane.subscribe({ group: 'g', topics: [TOPIC], concurrency: 1, handler: async (e) => void handled.push((e.data as { n: number }).n) });
      await lane.start();
      const events = numbered(5000);

      // Published in two halves, the second while the lane is busy with the first (past its array compaction).
      const first = lane.publish(events.slice(0, 2500));
      await waitFor(() => handled.length >= 1200);
      await Promise.all([first, lane.publish(events.slice(2500))]);

      expect(handled).toEqual(Array.from({ length: 5000 }, (_, n) => n));
    });

    it('with concurrency 1 handles one event at a time, in publish order', async () => {
      const { handler, state, release } = gatedHandler();
      await lane.subscribe({ group: 'g', topics: [TOPIC], concurrency: 1, handler });
      await lane.start();

      const published = lane.publish(numbered(5, 'k'));
      for (let n = 0; n < 5; n++) {
        await tick();
        expect(state.started).toEqual(Array.from({ length: n + 1 }, (_, i) => i));
        release(n);
      }
      await published;

      expect(state.maxRunning).toBe(1);
      expect(state.finished).toEqual([0, 1, 2, 3, 4]);
    });

    it('runs up to N handlers of a lane at once and starts the next chunk only when the whole chunk finished', async () => {
      const { handler, state, release } = gatedHandler();
      await lane.subscribe({ group: 'g', topics: [TOPIC], concurrency: 4, handler });
      await lane.start();

      const published = lane.publish(numbered(10));
      await tick();
      expect(state.started).toEqual([0, 1, 2, 3]);

      // Three of the chunk done, one still running: the lane waits for it.
      release(0, 1, 3);
      await tick();
      expect(state.started).toEqual([0, 1, 2, 3]);
      expect(state.running).toBe(1);

      release(2);
      await tick();
      expect(state.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);

      release(4, 5, 6, 7);
      await tick();
      expect(state.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      release(8, 9);
      await published;

      expect(state.maxRunning).toBe(4);
      expect([...state.finished].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it('acknowledges a chunk only when every delivery of it settled', async () => {
      const { handler, state, release } = gatedHandler();
      await lane.subscribe({ group: 'g', topics: [TOPIC], concurrency: 3, handler });
      await lane.start();
      const events = numbered(3);
      const acked: number[] = [];

      // One publish per event, so each has its own acknowledgement (ack 'handled').
      const published = events.map((event, n) => lane.publish([event]).then(() => acked.push(n)));
      await tick();
      expect(state.started).toEqual([0, 1, 2]);

      release(0, 2);
      await tick();
      expect(acked).toEqual([]);

      release(1);
      await Promise.all(published);
      expect([...acked].sort()).toEqual([0, 1, 2]);
    });

    it('retries and dead-letters a failing event of a chunk, handling the others once and acknowledging each once', async () => {
      const attempts: number[] = [];
      const handled: number[] = [];
      const dead: Array<[number, DeliveryContext]> = [];
      const lastAttempt = deferred();
      await lane.subscribe({
        group: 'g',
        topics: [TOPIC],
        concurrency: 4,
        maxRetries: 2,
        retryBackoffMs: 1,
        handler: async (e, ctx) => {
          const { n } = e.data as { n: number };
          if (n !== 1) return void handled.push(n);
          attempts.push(ctx.attempt);
          if (ctx.attempt === 3) await lastAttempt.promise;
          throw new Error('poison');
        },
      });
      await lane.subscribe({ group: 'ops', topics: [deadLetterTopic(TOPIC)], handler: async (e, ctx) => void dead.push([(e.data as { n: number }).n, ctx]) });
      await lane.start();
      const acked: number[] = [];

      const published = numbered(8).map((event, n) => lane.publish([event]).then(() => acked.push(n)));
      await waitFor(() => attempts.length === 3);
      // The chunk's other handlers are done, but the chunk is not acknowledged while its failing event is retried,
      // and the next chunk has not started.
      expect([...handled].sort()).toEqual([0, 2, 3]);
      expect(acked).toEqual([]);

      lastAttempt.resolve();
      await Promise.all(published);
      await lane.drain();

      expect(attempts).toEqual([1, 2, 3]);
      expect([...handled].sort()).toEqual([0, 2, 3, 4, 5, 6, 7]);
      expect([...acked].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(dead).toEqual([[1, expect.objectContaining({ deadLetter: expect.objectContaining({ attempts: 3, originalTopic: TOPIC, group: 'g' }) })]]);
    });

    describe('with a batch handler', () => {
      it('hands each chunk to the batch handler in one call, every event once, never to the per-event handler', async () => {
        const chunks: number[][] = [];
        const single: number[] = [];
        await lane.subscribe({
          group: 'g',
          topics: [TOPIC],
          concurrency: 4,
          handler: async (e) => void single.push((e.data as { n: number }).n),
          batchHandler: async (events, ctx) => {
            expect(ctx).toEqual({ topic: TOPIC, group: 'g' });
            chunks.push(events.map((e) => (e.data as { n: number }).n));
          },
        });
        await lane.start();
        await lane.publish(numbered(10));
        await lane.drain();
        expect(chunks).toEqual([
          [0, 1, 2, 3],
          [4, 5, 6, 7],
          [8, 9],
        ]);
        expect(single).toEqual([]);
      });

      it('retries a chunk through an outage without end and dead-letters nothing; the next chunk waits', async () => {
        const calls: number[][] = [];
        const dead: number[] = [];
        await lane.subscribe({
          group: 'g',
          topics: [TOPIC],
          concurrency: 3,
          maxRetries: 1,
          retryBackoffMs: 1,
          maxBackoffMs: 2,
          handler: async () => {
            throw new Error('the per-event handler must not run in an outage');
          },
          batchHandler: async (events) => {
            calls.push(events.map((e) => (e.data as { n: number }).n));
            // the database is away for the first five attempts of the first chunk
            if (calls.length <= 5) throw new TransientError('database away');
          },
        });
        await lane.subscribe({ group: 'ops', topics: [deadLetterTopic(TOPIC)], handler: async (e) => void dead.push((e.data as { n: number }).n) });
        await lane.start();
        await lane.publish(numbered(5));
        await lane.drain();
        expect(calls).toEqual([[0, 1, 2], [0, 1, 2], [0, 1, 2], [0, 1, 2], [0, 1, 2], [0, 1, 2], [3, 4]]);
        expect(dead).toEqual([]);
        expect(logger.lines.some((l) => l.includes('paused') && l.includes('database away'))).toBe(true);
      });

      it('hands a chunk whose batch failed for its own reason to the per-event handler, which dead-letters only the bad event', async () => {
        const batches: number[][] = [];
        const handled: number[] = [];
        const dead: Array<[number, DeliveryContext]> = [];
        await lane.subscribe({
          group: 'g',
          topics: [TOPIC],
          concurrency: 4,
          maxRetries: 1,
          retryBackoffMs: 1,
          handler: async (e) => {
            const { n } = e.data as { n: number };
            if (n === 2) throw new Error('poison');
            handled.push(n);
          },
          batchHandler: async (events) => {
            const ns = events.map((e) => (e.data as { n: number }).n);
            batches.push(ns);
            if (ns.includes(2)) throw new Error('poison in the batch');
          },
        });
        await lane.subscribe({ group: 'ops', topics: [deadLetterTopic(TOPIC)], handler: async (e, ctx) => void dead.push([(e.data as { n: number }).n, ctx]) });
        await lane.start();
        await lane.publish(numbered(6));
        await lane.drain();
        expect(batches).toEqual([
          [0, 1, 2, 3],
          [4, 5],
        ]);
        expect([...handled].sort()).toEqual([0, 1, 3]);
        expect(dead).toEqual([[2, expect.objectContaining({ deadLetter: expect.objectContaining({ attempts: 2, originalTopic: TOPIC, group: 'g' }) })]]);
      });
    });

    it('bounds a subscription at lanes x concurrency handlers at once', async () => {
      const lanes = new InMemoryEventBus({ logger, partitions: 4 });
      let running = 0;
      let maxRunning = 0;
      const handled = new Set<string>();
      await lanes.subscribe({
        group: 'g',
        topics: [TOPIC],
        concurrency: 2,
        handler: async (e) => {
          maxRunning = Math.max(maxRunning, ++running);
          await new Promise((r) => setImmediate(r));
          running--;
          handled.add(e.id);
        },
      });
      await lanes.start();

      // 64 keys: every one of the 4 lanes gets a queue longer than its chunk.
      await lanes.publish(Array.from({ length: 64 }, (_, i) => testEvent(TOPIC, `key-${i}`)));
      await lanes.drain();
      await lanes.stop();

      expect(maxRunning).toBe(8);
      expect(handled.size).toBe(64);
    });

    it('waits on stop() for every handler of the chunk in flight', async () => {
      const { handler, state, release } = gatedHandler();
      await lane.subscribe({ group: 'g', topics: [TOPIC], concurrency: 2, handler });
      await lane.start();
      void lane.publish(numbered(4));
      await tick();

      let stopped = false;
      const stopping = lane.stop().then(() => (stopped = true));
      release(0);
      await tick();
      expect(stopped).toBe(false);

      release(1);
      await stopping;
      // The second chunk stays queued: a stopped bus takes no new deliveries.
      expect(state.started).toEqual([0, 1]);
    });
  });
});
