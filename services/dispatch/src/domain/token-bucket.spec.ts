import { LimitBook, SendWindow, TokenBucket } from './token-bucket';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

interface Offer {
  accountId: string;
  streamId: string;
}

/**
 * The dispatcher's use of the book in miniature, on a moved clock: every tick (1 to 7 ms apart) the backlogged streams'
 * next messages are offered in turn; a message whose turn is within `horizonMs` is scheduled then, a later one is
 * released and offered again on a later tick (the dispatcher puts it back in its queue). Returns each stream's send times.
 */
function simulate(book: LimitBook, c: ReturnType<typeof clock>, offers: Offer[], seconds: number, horizonMs = 1000): Map<string, number[]> {
  const sent = new Map<string, number[]>(offers.map((o) => [o.streamId, []]));
  const end = c.now() + seconds * 1000;
  let step = 0;
  while (c.now() < end) {
    // the queue interleaves the streams' messages: a different stream goes first on each tick
    const open = new Set([...offers.slice(step % offers.length), ...offers.slice(0, step % offers.length)]);
    while (open.size) {
      for (const o of [...open]) {
        const wait = book.reserve(o);
        if (wait > horizonMs) {
          book.release(o);
          open.delete(o);
        } else sent.get(o.streamId)!.push(c.now() + wait);
      }
    }
    c.advance(1 + (step++ % 7));
  }
  return sent;
}

/** How many of `times` fall in [from, to). */
const within = (times: number[], from: number, to: number) => times.filter((t) => t >= from && t < to).length;

/** The most sends in any one-second window starting at a send. */
function busiestSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && sorted[j] < sorted[i] + 1000) j++;
    best = Math.max(best, j - i);
  }
  return best;
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
    // the next hundred go within a tenth of a second (the one already waiting counts as one message at the new rate)
    const waits = Array.from({ length: 100 }, () => book.reserve({ accountId: 'A', streamId: '1' }));
    expect(Math.max(...waits)).toBeLessThanOrEqual(102);
  });
});

describe('LimitBook: stream rates inside an account rate, on a moved clock', () => {
  const start = 1_000_000;
  // past the first seconds (opening bursts, the first horizon of held messages), over a long window
  const from = start + 2_000;
  const to = start + 62_000;

  it('paces a stream at N/s to within 2% over a minute under an account at M/s, and each stream to its own rate', () => {
    const c = clock(start);
    const rates = new Map([['100', 100], ['50', 50]]);
    const book = new LimitBook((acc) => (acc === 'A' ? 300 : 0), (s) => rates.get(s) ?? 0, c.now);
    const sent = simulate(book, c, [{ accountId: 'A', streamId: '100' }, { accountId: 'A', streamId: '50' }], 63);
    for (const [stream, rate] of rates) {
      const measured = within(sent.get(stream)!, from, to) / 60;
      expect(Math.abs(measured - rate) / rate).toBeLessThan(0.02);
      // no second of the run goes over the rate by more than the bucket's burst
      expect(busiestSecond(sent.get(stream)!)).toBeLessThanOrEqual(rate + TokenBucket.defaultBurst(rate) + 1);
    }
  });

  it('shares the account bucket between its streams: together they get the account rate, none more than its own', () => {
    const c = clock(start);
    const rates = new Map([['100', 100], ['50', 50]]);
    // an account at 120/s under two streams that would send 150/s, and a third stream without a rate of its own
    const book = new LimitBook((acc) => (acc === 'A' ? 120 : 0), (s) => rates.get(s) ?? 0, c.now);
    const offers = [{ accountId: 'A', streamId: '100' }, { accountId: 'A', streamId: '50' }, { accountId: 'A', streamId: 'free' }];
    const sent = simulate(book, c, offers, 63);
    const total = offers.reduce((n, o) => n + within(sent.get(o.streamId)!, from, to), 0) / 60;
    // the account is charged when each message really goes: no second over its rate (plus its burst and a rounding)
    expect(busiestSecond(offers.flatMap((o) => sent.get(o.streamId)!))).toBeLessThanOrEqual(120 + TokenBucket.defaultBurst(120) + 1);
    expect(Math.abs(total - 120) / 120).toBeLessThan(0.02);
    expect(within(sent.get('100')!, from, to) / 60).toBeLessThanOrEqual(100 * 1.02);
    expect(within(sent.get('50')!, from, to) / 60).toBeLessThanOrEqual(50 * 1.02);
    // a stream is charged when its message really goes: no second of the run over its rate (plus its burst of one)
    for (const [stream, rate] of rates) expect(busiestSecond(sent.get(stream)!)).toBeLessThanOrEqual(rate + TokenBucket.defaultBurst(rate));
  });

  it('keeps each stream within its rate in every second while their account is the limit', () => {
    const c = clock(start);
    const rates = new Map([['100', 100], ['50', 50]]);
    const book = new LimitBook(() => 120, (s) => rates.get(s) ?? 0, c.now);
    const offers = [...rates.keys()].map((streamId) => ({ accountId: 'A', streamId }));
    const sent = simulate(book, c, offers, 63);
    const all = offers.flatMap((o) => sent.get(o.streamId)!);
    expect(Math.abs(within(all, from, to) / 60 - 120) / 120).toBeLessThan(0.02);
    // both are charged when a message really goes: no second over the account's rate, nor over a stream's (plus bursts)
    expect(busiestSecond(all)).toBeLessThanOrEqual(120 + TokenBucket.defaultBurst(120) + 1);
    for (const [stream, rate] of rates) expect(busiestSecond(sent.get(stream)!)).toBeLessThanOrEqual(rate + TokenBucket.defaultBurst(rate));
    // every stream gets a share: none is starved by the others
    for (const o of offers) expect(within(sent.get(o.streamId)!, from, to)).toBeGreaterThan(60 * 10);
  });

  it('gives a stream without a rate of its own (0) the whole account rate', () => {
    const c = clock(start);
    const book = new LimitBook(() => 300, () => 0, c.now);
    const sent = simulate(book, c, [{ accountId: 'A', streamId: '1' }], 63);
    expect(Math.abs(within(sent.get('1')!, from, to) / 60 - 300) / 300).toBeLessThan(0.02);
  });

  it('keeps an account at its rate while a slow stream holds messages: releasing one gives its account slot back', () => {
    const c = clock(start);
    const book = new LimitBook(() => 10, (s) => (s === 'slow' ? 1 : 0), c.now);
    // the slow stream's second message is due in a second: released, it must not cost the account a slot
    expect(book.reserve({ accountId: 'A', streamId: 'slow' })).toBe(0);
    for (let i = 0; i < 5; i++) {
      const wait = book.reserve({ accountId: 'A', streamId: 'slow' });
      expect(wait).toBeGreaterThan(0);
      book.release({ accountId: 'A', streamId: 'slow' });
    }
    // the account (burst 1) refills one slot every 100 ms, whatever the slow stream was refused
    c.advance(100);
    expect(book.reserve({ accountId: 'A', streamId: 'fast' })).toBe(0);
  });

  it('charges the account when a message really goes: a slow stream\'s message held for later leaves the room before it to the others', () => {
    const c = clock(start);
    const book = new LimitBook(() => 10, (s) => (s === 'slow' ? 1 : 0), c.now);
    expect(book.reserve({ accountId: 'A', streamId: 'slow' })).toBe(0);
    // held for a second by its stream: the account is booked then, not now
    expect(book.reserve({ accountId: 'A', streamId: 'slow' })).toBe(1000);
    // the account's next slot (10/s) is still free for another stream
    expect(book.reserve({ accountId: 'A', streamId: 'fast' })).toBeLessThanOrEqual(100);
    expect(book.reserve({ accountId: 'A', streamId: 'fast' })).toBeLessThanOrEqual(200);
  });

  it('keeps the queue of a stream whose rate is lowered: new messages wait behind those already scheduled', () => {
    const c = clock(start);
    let rate = 10;
    const book = new LimitBook(() => 0, () => rate, c.now);
    const waits = Array.from({ length: 11 }, () => book.reserve({ accountId: 'A', streamId: 's' }));
    expect(waits[10]).toBe(1000);
    rate = 5;
    // ten messages are still waiting for their slots: at 5/s the next one comes after two seconds' worth of them
    expect(book.reserve({ accountId: 'A', streamId: 's' })).toBe(2200);
  });

  // issue 17: a replica's share of a rate grows while messages it booked at the old share still wait for their slots
  for (const limit of ['account', 'stream'] as const) {
    it(`keeps the ${limit} rate in every second when it is raised while messages booked at the old rate still wait`, () => {
      const c = clock(start);
      let rate = 20;
      const book = new LimitBook(() => (limit === 'account' ? rate : 0), () => (limit === 'stream' ? rate : 0), c.now);
      const key = { accountId: 'A', streamId: 's' };
      const sent: number[] = [];
      // a second of backlog booked at 20/s
      for (let wait = book.reserve(key); wait <= 1000; wait = book.reserve(key)) sent.push(c.now() + wait);
      book.release(key);
      rate = 39;
      // then a backlog offered every 5 ms at the raised rate, for five seconds
      for (let step = 0; step < 1000; step++) {
        for (let wait = book.reserve(key); wait <= 1000; wait = book.reserve(key)) sent.push(c.now() + wait);
        book.release(key);
        c.advance(5);
      }
      // the old bookings and the new ones together: never more than the raised rate in a second (and its burst)
      expect(busiestSecond(sent)).toBeLessThanOrEqual(39 + 2);
      // and the raised rate is used once the old bookings have gone out
      expect(within(sent, start + 2000, start + 5000)).toBeGreaterThanOrEqual(3 * 39 - 2);
    });
  }

  it('lets a stream whose rate is removed go at the account rate at once', () => {
    const c = clock(start);
    let rate = 1;
    const book = new LimitBook(() => 0, () => rate, c.now);
    book.reserve({ accountId: 'A', streamId: 's' });
    expect(book.reserve({ accountId: 'A', streamId: 's' })).toBeGreaterThan(0);
    rate = 0;
    expect(book.reserve({ accountId: 'A', streamId: 's' })).toBe(0);
  });
});

describe('SendWindow: the sends of one limit as a carrier counts them (issue 17, decision 0094)', () => {
  /**
   * One replica pacing an account at 200/s on a moved clock: the book plans each message's turn a second ahead, and a
   * timer fires at its turn unless the event loop is stalled then (a stall of 150 ms every 2 s), in which case it fires
   * when the stall ends, together with every other timer due in it. `guard`: each send asks the window first and waits
   * for its room. Answers the send times.
   */
  function stalledSends(guard: SendWindow | null, seconds: number): number[] {
    const c = clock(0);
    const book = new LimitBook(() => 200, () => 0, c.now);
    const key = { accountId: '1', streamId: '1' };
    const stalled = (t: number) => t % 2000 >= 1850;
    const due: number[] = [];
    const sent: number[] = [];
    let planned = 0;
    for (let t = 0; t < seconds * 1000; t = c.advance(1)) {
      // a backlog: the book is kept a second ahead
      while (planned < t + 1000) {
        const wait = book.reserve(key);
        if (wait > 1000) {
          book.release(key);
          break;
        }
        planned = t + wait;
        due.push(planned);
      }
      if (stalled(t)) continue;
      // the timers due by now fire (late ones together); a guarded send without room waits for it
      due.sort((a, b) => a - b);
      while (due.length && due[0] <= t) {
        const w = guard ? guard.waitAt(t) : 0;
        if (w > 0) {
          due[0] = t + w;
          break;
        }
        guard?.sent(t);
        sent.push(t);
        due.shift();
      }
    }
    return sent;
  }

  it('keeps every one-second window within the rate when stalled timers fire together, and loses no rate to the stalls', () => {
    const seconds = 20;
    // without the window, the timers of each stall go out together with the next ones: over the rate
    expect(busiestSecond(stalledSends(null, seconds))).toBeGreaterThan(200);
    const sent = stalledSends(new SendWindow(200), seconds);
    expect(busiestSecond(sent)).toBeLessThanOrEqual(200);
    // what a stall delayed catches up where the window has room: at least 98% of the rate over the run after its first second
    expect(within(sent, 1000, seconds * 1000) / (seconds - 1)).toBeGreaterThanOrEqual(196);
  });

  it('lets the rate through at once when the last second had room, and then one send per free place', () => {
    const w = new SendWindow(3);
    for (const t of [0, 10, 20]) {
      expect(w.waitAt(t)).toBe(0);
      w.sent(t);
    }
    expect(w.waitAt(500)).toBe(500);
    expect(w.waitAt(1000)).toBe(0);
    w.sent(1000);
    expect(w.waitAt(1000)).toBe(10);
  });
});
