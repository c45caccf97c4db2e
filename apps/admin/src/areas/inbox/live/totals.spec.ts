import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { TotalsRefresher } from './totals';

describe('the filter counts refreshed from the server after live events', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  const deferred = () => {
    let resolve!: (n: number) => void;
    const promise = new Promise<number>((r) => (resolve = r));
    return { promise, resolve };
  };

  it('asks once for a burst of events and applies the answer', async () => {
    const applied: number[] = [];
    const fetchTotals = jest.fn(async () => 42);
    const r = new TotalsRefresher(fetchTotals, (t) => applied.push(t), 300);
    for (let i = 0; i < 5; i++) r.schedule();
    await jest.advanceTimersByTimeAsync(299);
    expect(fetchTotals).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(fetchTotals).toHaveBeenCalledTimes(1);
    expect(applied).toEqual([42]);
  });

  it('never lets an older answer overwrite a newer one, nor a page load\'s totals', async () => {
    const answers = [deferred(), deferred(), deferred()];
    let call = 0;
    const applied: number[] = [];
    const r = new TotalsRefresher(() => answers[call++].promise, (t) => applied.push(t), 10);
    r.schedule();
    await jest.advanceTimersByTimeAsync(10);
    r.schedule();
    await jest.advanceTimersByTimeAsync(10);
    answers[1].resolve(2);
    answers[0].resolve(1);
    await jest.advanceTimersByTimeAsync(0);
    expect(applied).toEqual([2]);

    r.schedule();
    await jest.advanceTimersByTimeAsync(10);
    r.supersede();
    answers[2].resolve(3);
    await jest.advanceTimersByTimeAsync(0);
    expect(applied).toEqual([2]);
  });

  it('stops asking when the screen goes', async () => {
    const fetchTotals = jest.fn(async () => 1);
    const r = new TotalsRefresher(fetchTotals, () => undefined, 10);
    r.schedule();
    r.stop();
    await jest.advanceTimersByTimeAsync(100);
    expect(fetchTotals).not.toHaveBeenCalled();
  });
});
