import { MessageStatusChangedV1, MessageStatusesChangedV1, type EventEnvelope } from '@switchboard/contracts';
import { eachAtOnce, withStatusBatches } from './delivery';
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

describe('withStatusBatches (dispatch\'s batches of status changes as their per-message events, docs/decisions/0173)', () => {
  const uuid = (n: number) => `0190b3a0-0000-7000-8000-${String(n).padStart(12, '0')}`;
  const batch = (ns: number[]): EventEnvelope =>
    ({ id: uuid(900), type: MessageStatusesChangedV1.type, version: 1, key: 'k', accountId: null, occurredAt: '2026-11-28T00:00:00.000Z', source: 'dispatch', traceId: null, data: { items: ns.map((n) => ({ id: uuid(n), data: { n, accountId: String(n) } })) } }) as unknown as EventEnvelope;
  const ctx = { topic: 't', group: 'g', attempt: 1 };

  it('hands a chunk\'s batches on as their events, each with its own id and account, with the other events in place', async () => {
    const seen: Array<[string, string, string | null]> = [];
    const { batchHandler } = withStatusBatches(async () => undefined, eachAtOnce(async (e) => void seen.push([e.type, e.id, e.accountId])));
    await batchHandler!([event(1), batch([2, 3]), event(4)], ctx);
    expect(seen).toEqual([
      ['svc.thing.happened', event(1).id, '1'],
      [MessageStatusChangedV1.type, uuid(2), '2'],
      [MessageStatusChangedV1.type, uuid(3), '3'],
      ['svc.thing.happened', event(4).id, '1'],
    ]);
  });

  it('one at a time, runs a batch\'s events and fails it with the first failure once all settled; any other event goes through as it is', async () => {
    const seen: string[] = [];
    const { handler } = withStatusBatches(async (e) => {
      seen.push(e.id);
      if (e.id === uuid(2)) throw new Error('bad 2');
    });
    await expect(handler(batch([1, 2, 3]), ctx)).rejects.toThrow('bad 2');
    expect(seen).toEqual([uuid(1), uuid(2), uuid(3)]);
    await handler(event(5), ctx);
    expect(seen.at(-1)).toBe(event(5).id);
  });
});
