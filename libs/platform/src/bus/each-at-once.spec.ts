import type { EventEnvelope } from '@switchboard/contracts';
import { eachAtOnce } from './delivery';
import { InMemoryEventBus } from './in-memory-event-bus';

const event = (n: number, type = 'svc.thing.happened'): EventEnvelope =>
  ({ id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, type, version: 1, key: `k${n}`, accountId: '1', occurredAt: '2026-11-28T00:00:00.000Z', source: 'test', data: { n } }) as unknown as EventEnvelope;

describe('eachAtOnce (a chunk handed to the group handler at once, docs/decisions/0160)', () => {
  it('runs the handler on every event of the chunk at once and resolves when all of them did', async () => {
    const started: number[] = [];
    const release: Array<() => void> = [];
    const batch = eachAtOnce((e) => {
      started.push((e.data as { n: number }).n);
      return new Promise<void>((r) => release.push(r));
    });
    let done = false;
    const call = batch([event(1), event(2), event(3)], { topic: 't', group: 'g' }).then(() => (done = true));
    expect(started).toEqual([1, 2, 3]);
    release[0]();
    release[1]();
    await Promise.resolve();
    expect(done).toBe(false);
    release[2]();
    await call;
    expect(done).toBe(true);
  });

  it('fails with the first failure only once every event of the chunk settled', async () => {
    let settled = 0;
    const batch = eachAtOnce((e) => {
      const n = (e.data as { n: number }).n;
      return new Promise<void>((resolve, reject) =>
        setTimeout(
          () => {
            settled++;
            if (n === 1) reject(new Error('bad 1'));
            else if (n === 2) reject(new Error('bad 2'));
            else resolve();
          },
          n === 3 ? 20 : 1,
        ),
      );
    });
    await expect(batch([event(1), event(2), event(3)], { topic: 't', group: 'g' })).rejects.toThrow('bad 1');
    expect(settled).toBe(3);
  });

  it('skips an event its handler answers undefined for', async () => {
    const seen: number[] = [];
    const batch = eachAtOnce((e) => {
      const n = (e.data as { n: number }).n;
      if (n % 2) return undefined;
      seen.push(n);
      return Promise.resolve();
    });
    await batch([event(1), event(2), event(3), event(4)], { topic: 't', group: 'g' });
    expect(seen).toEqual([2, 4]);
  });

  it('on the bus: a chunk that fails for a bad event goes event by event, the bad one dead-lettered alone and the others handled', async () => {
    const bus = new InMemoryEventBus({ logger: { warn: () => undefined, error: () => undefined } });
    const handled: number[] = [];
    const dead: number[] = [];
    const handler = async (e: EventEnvelope): Promise<void> => {
      const n = (e.data as { n: number }).n;
      if (n === 2) throw new Error('bad event');
      handled.push(n);
    };
    await bus.subscribe({ group: 'g', topics: ['t'], concurrency: 8, maxRetries: 0, handler, batchHandler: eachAtOnce(handler) });
    await bus.subscribe({ group: 'dlq', topics: ['t.dlq'], handler: async (e) => void dead.push((e.data as { n: number }).n) });
    await bus.start();
    await bus.publish([1, 2, 3].map((n) => ({ ...event(n), key: 'same', topic: 't' })));
    await bus.drain();
    await bus.stop();
    // 1 and 3 handled in the chunk, then again one by one (at least once); 2 only dead-lettered
    expect([...new Set(handled)].sort()).toEqual([1, 3]);
    expect(dead).toEqual([2]);
  });
});
