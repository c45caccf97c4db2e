import { BatchedWriter } from './batched-writer';

describe('BatchedWriter', () => {
  it('writes the calls of one turn, and those made while a write is in flight, as one write each, in order', async () => {
    const writes: number[][] = [];
    let release: () => void = () => undefined;
    const writer = new BatchedWriter<number>(async (items) => {
      writes.push(items);
      if (writes.length === 1) await new Promise<void>((r) => (release = r));
    });
    const first = [1, 2, 3].map((n) => writer.add(n));
    await new Promise((r) => setImmediate(r));
    const second = [4, 5].map((n) => writer.add(n));
    release();
    await Promise.all([...first, ...second]);
    expect(writes).toEqual([[1, 2, 3], [4, 5]]);
  });

  it('rejects every call of a failed write with its error, and goes on with the next', async () => {
    let fail = true;
    const writer = new BatchedWriter<string>(async () => {
      if (fail) throw new Error('database down');
    });
    const failed = await Promise.allSettled([writer.add('a'), writer.add('b')]);
    expect(failed.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'ok'))).toEqual(['database down', 'database down']);
    fail = false;
    await expect(writer.add('c')).resolves.toBeUndefined();
  });

  describe('with a linger (docs/decisions/0139)', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('writes calls arriving one by one within it as one write, once the first has waited it', async () => {
      const writes: number[][] = [];
      const writer = new BatchedWriter<number>(async (items) => void writes.push(items), 1000, 40);
      const calls: Array<Promise<void>> = [];
      for (let n = 1; n <= 4; n++) {
        calls.push(writer.add(n));
        // apart in time: without a linger each would be a write of its own
        await jest.advanceTimersByTimeAsync(9);
      }
      expect(writes).toEqual([]);
      await jest.advanceTimersByTimeAsync(4);
      await Promise.all(calls);
      expect(writes).toEqual([[1, 2, 3, 4]]);
    });

    it('writes a full batch at once, and the calls after it once the oldest of them has waited the linger', async () => {
      const writes: number[][] = [];
      const writer = new BatchedWriter<number>(async (items) => void writes.push(items), 2, 300);
      await jest.advanceTimersByTimeAsync(0);
      const full = [writer.add(1), writer.add(2)];
      await jest.advanceTimersByTimeAsync(0);
      await Promise.all(full);
      expect(writes).toEqual([[1, 2]]);
      const third = writer.add(3);
      await jest.advanceTimersByTimeAsync(299);
      expect(writes).toEqual([[1, 2]]);
      await jest.advanceTimersByTimeAsync(1);
      await third;
      expect(writes).toEqual([[1, 2], [3]]);
    });

    it('rejects the calls of a failed write and writes the next ones', async () => {
      let fail = true;
      const writer = new BatchedWriter<string>(async () => {
        if (fail) throw new Error('database down');
      }, 1000, 10);
      const failed = Promise.allSettled([writer.add('a'), writer.add('b')]);
      await jest.advanceTimersByTimeAsync(10);
      expect((await failed).map((r) => r.status)).toEqual(['rejected', 'rejected']);
      fail = false;
      const next = writer.add('c');
      await jest.advanceTimersByTimeAsync(10);
      await expect(next).resolves.toBeUndefined();
    });
  });
});
