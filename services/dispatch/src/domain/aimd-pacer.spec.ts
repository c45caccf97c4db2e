import { AimdPacer } from './aimd-pacer';
import { TokenBucket } from './token-bucket';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

/**
 * One bind with an endless backlog against a carrier that takes `limit` submits/s (a token bucket holding `burst`)
 * and answers ESME_RTHROTTLED above it, on a moved clock (1 ms steps, `rttMs` to each answer). Throttled submits go
 * back to the backlog. Returns what the carrier accepted per simulated second and the pacer.
 */
function simulate(opts: { limit: number; burst: number; seconds: number; maxRate?: number; rttMs?: number; window?: number; limitAt?: (second: number) => number }) {
  const c = clock();
  const start = c.now();
  const pacer = new AimdPacer({ maxRate: opts.maxRate, now: c.now });
  let limit = opts.limit;
  let carrier = new TokenBucket(limit, opts.burst, c.now);
  const rtt = opts.rttMs ?? 2;
  const window = opts.window ?? 64;
  const answers: Array<{ at: number; ok: boolean; epoch: number }> = [];
  const perSecond: number[] = [];
  const rates: number[] = [];
  while (c.now() - start < opts.seconds * 1000) {
    const second = Math.floor((c.now() - start) / 1000);
    const want = opts.limitAt?.(second) ?? opts.limit;
    if (want !== limit) {
      limit = want;
      carrier = new TokenBucket(limit, opts.burst, c.now);
    }
    while (answers.length && answers[0].at <= c.now()) {
      const a = answers.shift()!;
      if (a.ok) pacer.onAccepted(true);
      else pacer.onThrottled(a.epoch);
    }
    while (answers.length < window && pacer.take() === 0) {
      const ok = carrier.take() === 0;
      if (ok) perSecond[second] = (perSecond[second] ?? 0) + 1;
      answers.push({ at: c.now() + rtt, ok, epoch: pacer.epoch });
    }
    if ((c.now() - start) % 1000 === 0) rates.push(pacer.rate);
    c.advance(1);
  }
  return { pacer, perSecond: perSecond.map((n) => n ?? 0), rates };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('AIMD pacer against a throttling carrier (simulated clock)', () => {
  it('settles an unpaced bind at 90% or more of a strict carrier limit, halving once per throttle episode', () => {
    const { pacer, perSecond } = simulate({ limit: 300, burst: 15, seconds: 40 });
    const steady = mean(perSecond.slice(5));
    expect(steady / 300).toBeGreaterThanOrEqual(0.9);
    expect(steady / 300).toBeLessThanOrEqual(1.01);
    const s = pacer.state();
    expect(s.decreases).toBeGreaterThan(1);
    // a whole window of refused submits is one episode: far fewer halvings than refusals
    expect(s.decreases).toBeLessThan(s.throttled);
    expect(s.throttledAt).toBeGreaterThan(250);
    expect(s.throttledAt).toBeLessThan(360);
  });

  it('comes down from a configured rate far above the carrier limit within the first seconds', () => {
    const { pacer, perSecond, rates } = simulate({ limit: 300, burst: 15, seconds: 30, maxRate: 1000 });
    expect(mean(perSecond.slice(1)) / 300).toBeGreaterThanOrEqual(0.9);
    expect(Math.max(...rates.slice(3))).toBeLessThan(400);
    expect(pacer.state().decreases).toBeGreaterThan(2);
  });

  it('never exceeds the configured rate and is not slowed when the carrier allows more', () => {
    const { pacer, perSecond } = simulate({ limit: 1000, burst: 50, seconds: 10, maxRate: 200 });
    expect(Math.max(...perSecond)).toBeLessThanOrEqual(200 + 20);
    expect(mean(perSecond.slice(1))).toBeGreaterThanOrEqual(195);
    expect(pacer.state()).toMatchObject({ rate: 200, throttled: 0, decreases: 0 });
  });

  it('follows a carrier whose limit drops and comes back', () => {
    const { perSecond, rates } = simulate({ limit: 300, burst: 15, seconds: 60, maxRate: 1000, limitAt: (s) => (s >= 20 && s < 40 ? 100 : 300) });
    expect(mean(perSecond.slice(25, 40)) / 100).toBeGreaterThanOrEqual(0.9);
    expect(mean(perSecond.slice(45, 60)) / 300).toBeGreaterThanOrEqual(0.85);
    expect(Math.max(...rates.slice(25, 40))).toBeLessThan(150);
  });

  it('gives back the slot of a submit that was not written', () => {
    const c = clock();
    const pacer = new AimdPacer({ maxRate: 10, burstMs: 100, now: c.now });
    expect(pacer.take()).toBe(0);
    expect(pacer.take()).toBeGreaterThan(0);
    pacer.refund();
    expect(pacer.take()).toBe(0);
  });

  it('does not grow while the bind has no backlog', () => {
    const c = clock();
    const pacer = new AimdPacer({ maxRate: 1000, now: c.now });
    for (let i = 0; i < 50; i++) {
      pacer.onAccepted(true);
      c.advance(2);
    }
    pacer.onThrottled(pacer.epoch);
    const after = pacer.rate;
    for (let i = 0; i < 100; i++) {
      c.advance(100);
      pacer.onAccepted(false);
    }
    expect(pacer.rate).toBe(after);
  });
});
