import { GroupCommit } from './group-commit';

const turn = () => new Promise((r) => setImmediate(r));
/** Enough turns for a finished batch to answer and the next one to start. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await turn();
}

/** A write that records its batches and waits until the test lets it finish. */
function recorder() {
  const batches: string[][] = [];
  const gates: Array<() => void> = [];
  const write = async (items: string[]): Promise<string[]> => {
    batches.push(items);
    await new Promise<void>((r) => gates.push(r));
    if (items.includes('boom')) throw new Error('batch failed');
    return items.map((i) => `${i}!`);
  };
  const release = async () => {
    for (const g of gates.splice(0)) g();
    await settle();
  };
  return { batches, write, release };
}

describe('GroupCommit', () => {
  it('writes the items submitted in one turn of the event loop as one batch, answering each with its own result', async () => {
    const r = recorder();
    const g = new GroupCommit(r.write, { maxBatch: 100, maxInFlight: 1 });
    const answers = Promise.all(['a', 'b', 'c'].map((i) => g.submit(i)));
    await turn();
    expect(r.batches).toEqual([['a', 'b', 'c']]);
    await r.release();
    await expect(answers).resolves.toEqual(['a!', 'b!', 'c!']);
  });

  it('gathers what arrives while a batch is written into the next batch', async () => {
    const r = recorder();
    const g = new GroupCommit(r.write, { maxBatch: 100, maxInFlight: 1 });
    const first = g.submit('a');
    await turn();
    const later = [g.submit('b'), g.submit('c')];
    await turn();
    expect(r.batches).toEqual([['a']]);
    expect(g.waiting).toBe(2);
    await r.release();
    await first;
    expect(r.batches).toEqual([['a'], ['b', 'c']]);
    await r.release();
    await expect(Promise.all(later)).resolves.toEqual(['b!', 'c!']);
  });

  it('keeps items that share a key in separate batches, in submission order', async () => {
    const r = recorder();
    const g = new GroupCommit(r.write, { maxBatch: 100, maxInFlight: 1 });
    const all = Promise.all([g.submit('a', ['k1']), g.submit('b', ['k1', 'k2']), g.submit('c', ['k3']), g.submit('d', ['k2'])]);
    await turn();
    expect(r.batches).toEqual([['a', 'c']]);
    await r.release();
    expect(r.batches).toEqual([['a', 'c'], ['b']]);
    await r.release();
    expect(r.batches).toEqual([['a', 'c'], ['b'], ['d']]);
    await r.release();
    await expect(all).resolves.toEqual(['a!', 'b!', 'c!', 'd!']);
  });

  it('holds an item back while a batch holding its key is written, even with room for another batch', async () => {
    const r = recorder();
    const g = new GroupCommit(r.write, { maxBatch: 100, maxInFlight: 2 });
    const first = g.submit('a', ['k']);
    await turn();
    const second = g.submit('b', ['k']);
    const other = g.submit('c', ['z']);
    await settle();
    expect(r.batches).toEqual([['a'], ['c']]);
    await r.release();
    expect(r.batches).toEqual([['a'], ['c'], ['b']]);
    await r.release();
    await expect(Promise.all([first, second, other])).resolves.toEqual(['a!', 'b!', 'c!']);
  });

  it('caps a batch at maxBatch items and writes up to maxInFlight batches at once', async () => {
    const r = recorder();
    const g = new GroupCommit(r.write, { maxBatch: 2, maxInFlight: 2 });
    const all = Promise.all(['a', 'b', 'c', 'd', 'e'].map((i) => g.submit(i)));
    await turn();
    await turn();
    expect(r.batches).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    await r.release();
    expect(r.batches[2]).toEqual(['e']);
    await r.release();
    await expect(all).resolves.toEqual(['a!', 'b!', 'c!', 'd!', 'e!']);
  });

  it('fails every item of a batch whose write fails, and only those', async () => {
    const r = recorder();
    const g = new GroupCommit(r.write, { maxBatch: 2, maxInFlight: 1 });
    const failed = [g.submit('x'), g.submit('boom')].map((f) => expect(f).rejects.toThrow('batch failed'));
    const fine = g.submit('y');
    await turn();
    await r.release();
    await Promise.all(failed);
    await r.release();
    await expect(fine).resolves.toBe('y!');
    expect(r.batches).toEqual([['x', 'boom'], ['y']]);
  });
});
