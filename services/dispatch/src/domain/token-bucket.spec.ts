import { LimitBook, TokenBucket } from './token-bucket';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('TokenBucket', () => {
  it('lets a burst through, then exactly `rate` per second', () => {
    const c = clock();
    const b = new TokenBucket(500, 10, c.now);
    let passed = 0;
    for (let i = 0; i < 10; i++) if (b.take() === 0) passed++;
    expect(passed).toBe(10);
    expect(b.take()).toBeGreaterThan(0);
    // one simulated second in 1 ms steps, taking whenever allowed
    for (let ms = 0; ms < 1000; ms++) {
      c.advance(1);
      while (b.take() === 0) passed++;
    }
    expect(passed).toBe(10 + 500);
  });

  it('stays within 2% of its rate over ten seconds of irregular callers', () => {
    const c = clock();
    const rate = 500;
    const b = new TokenBucket(rate, TokenBucket.defaultBurst(rate), c.now);
    let passed = 0;
    let step = 0;
    while (c.now() < 1_000_000 + 10_000) {
      c.advance(1 + (step++ % 7)); // 1..7 ms gaps
      while (b.take() === 0) passed++;
    }
    expect(Math.abs(passed - rate * 10) / (rate * 10)).toBeLessThan(0.02);
  });

  it('answers how long to wait for the next token', () => {
    const c = clock();
    const b = new TokenBucket(100, 1, c.now);
    expect(b.take()).toBe(0);
    expect(b.take()).toBe(10);
    c.advance(10);
    expect(b.take()).toBe(0);
  });

  it('reserves into debt so held messages go out at the rate, and gives back a released reservation', () => {
    const c = clock();
    const b = new TokenBucket(10, 1, c.now);
    expect(b.reserve()).toBe(0);
    expect(b.reserve()).toBe(100);
    expect(b.reserve()).toBe(200);
    b.refund();
    expect(b.reserve()).toBe(200);
  });

  it('refuses a rate of zero or a burst below one', () => {
    expect(() => new TokenBucket(0, 1)).toThrow();
    expect(() => new TokenBucket(10, 0)).toThrow();
  });
});

describe('LimitBook: per-account and per-stream limits', () => {
  it('holds an account to its TPS across its streams, and leaves other accounts alone', () => {
    const c = clock();
    const tps = new Map([['A', 2]]);
    const book = new LimitBook((acc) => tps.get(acc) ?? 0, () => 0, c.now);
    expect(book.reserve({ accountId: 'A', streamId: '1' })).toBe(0);
    expect(book.reserve({ accountId: 'A', streamId: '2' })).toBeGreaterThan(0);
    for (let i = 0; i < 100; i++) expect(book.reserve({ accountId: 'B', streamId: '3' })).toBe(0);
  });

  it('holds a stream to its own rate inside a faster account', () => {
    const c = clock();
    const book = new LimitBook(() => 1000, (s) => (s === 'slow' ? 1 : 0), c.now);
    expect(book.reserve({ accountId: 'A', streamId: 'slow' })).toBe(0);
    expect(book.reserve({ accountId: 'A', streamId: 'slow' })).toBe(1000);
    expect(book.reserve({ accountId: 'A', streamId: 'fast' })).toBe(0);
  });

  it('follows a changed account rate at once', () => {
    const c = clock();
    let rate = 1;
    const book = new LimitBook(() => rate, () => 0, c.now);
    book.reserve({ accountId: 'A', streamId: '1' });
    expect(book.reserve({ accountId: 'A', streamId: '1' })).toBeGreaterThan(0);
    rate = 1000;
    expect(book.reserve({ accountId: 'A', streamId: '1' })).toBe(0);
  });
});
