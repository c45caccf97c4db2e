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
});
