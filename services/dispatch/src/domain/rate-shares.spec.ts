import { fairShares, LocalShares, shareFor, wantOf } from './rate-shares';

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('fair shares of a rate across replicas', () => {
  it('splits a rate evenly between replicas that all want more than it', () => {
    expect(fairShares(100, [Infinity, Infinity])).toEqual([50, 50]);
    expect(fairShares(90, [Infinity, Infinity, Infinity])).toEqual([30, 30, 30]);
  });

  it('meets a small want first and gives the rest to the replica held back', () => {
    expect(fairShares(100, [10, Infinity])).toEqual([10, 90]);
  });

  it('spreads what nobody wants over everyone, so the shares always add up to the rate', () => {
    const shares = fairShares(100, [10, 20]);
    expect(shares).toEqual([45, 55]);
    expect(sum(shares)).toBe(100);
  });

  it('asks, for a replica not held back, a quarter over what it used and at least 2% of the rate', () => {
    expect(wantOf(100, { demand: 40, saturated: false })).toBe(52);
    expect(wantOf(1000, { demand: 0, saturated: false })).toBe(20);
    expect(wantOf(100, { demand: 40, saturated: true })).toBe(Infinity);
  });

  it('takes only what the other replicas do not hold, even when its fair share is more', () => {
    // a second replica joins while the first still holds the whole rate: nothing yet
    expect(shareFor(100, { demand: 0, saturated: true }, [{ holding: 100, demand: 100, saturated: true }])).toBe(0);
    // the first one, renewing, sees the newcomer held back and lowers itself to half
    expect(shareFor(100, { demand: 100, saturated: true }, [{ holding: 0, demand: 0, saturated: true }])).toBe(50);
    // the newcomer then takes the half now free
    expect(shareFor(100, { demand: 0, saturated: true }, [{ holding: 50, demand: 50, saturated: true }])).toBe(50);
  });

  it('gives the whole rate to a replica alone', () => {
    expect(shareFor(40, { demand: 3, saturated: false }, [])).toBe(40);
  });

  it('never grants more than the rate in total, whatever order the replicas renew in', () => {
    // three replicas with random wants renewing in random order, each seeing the others' current holdings
    let seed = 7;
    const rnd = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    const rate = 100;
    const held = [0, 0, 0];
    for (let step = 0; step < 500; step++) {
      const i = Math.floor(rnd() * 3);
      const mine = { demand: rnd() * 80, saturated: rnd() < 0.5 };
      const others = held.map((h) => ({ holding: h, demand: h, saturated: rnd() < 0.5 })).filter((_, k) => k !== i);
      held[i] = shareFor(rate, mine, others);
      expect(sum(held)).toBeLessThanOrEqual(rate + 1e-9);
    }
  });
});

describe('a replica\'s own shares', () => {
  it('has no share of a limit until a renewal grants one, and then paces at it until the lease runs out', () => {
    let now = 0;
    const shares = new LocalShares(() => now);
    expect(shares.state('a:1', 0)).toEqual({ kind: 'unlimited' });
    expect(shares.state('a:1', 50)).toEqual({ kind: 'unknown' });
    const asked = shares.renewal(10_000, () => 50);
    // a newcomer asks for as much as it can get
    expect(asked.claims).toEqual([{ key: 'a:1', rate: 50, demand: 0, saturated: true }]);
    shares.granted(now, 1000, [{ key: 'a:1', rate: 50, share: 25 }], []);
    expect(shares.state('a:1', 50)).toEqual({ kind: 'share', rate: 25 });
    // the configured rate changed: the share was for the old one
    expect(shares.state('a:1', 60)).toEqual({ kind: 'unknown' });
    now = 1001;
    expect(shares.state('a:1', 50)).toEqual({ kind: 'unknown' });
  });

  it('reports what it used since the last renewal, whether a limit held it back, and gives up limits it no longer uses', () => {
    let now = 0;
    const shares = new LocalShares(() => now);
    shares.state('a:1', 50);
    shares.state('s:2', 10);
    shares.granted(now, 5000, [
      { key: 'a:1', rate: 50, share: 50 },
      { key: 's:2', rate: 10, share: 10 },
    ], []);
    now = 500;
    for (let i = 0; i < 10; i++) shares.booked('a:1');
    shares.booked('s:2', 30);
    expect(shares.renewal(10_000, (k) => (k === 'a:1' ? 50 : 10)).claims).toEqual([
      { key: 'a:1', rate: 50, demand: 20, saturated: false },
      { key: 's:2', rate: 10, demand: 2, saturated: true },
    ]);
    shares.granted(now, 5000, [{ key: 'a:1', rate: 50, share: 50 }, { key: 's:2', rate: 10, share: 10 }], []);
    now = 20_000;
    shares.booked('a:1');
    expect(shares.renewal(10_000, (k) => (k === 'a:1' ? 50 : 10))).toEqual({ claims: [{ key: 'a:1', rate: 50, demand: expect.any(Number), saturated: false }], drop: ['s:2'] });
  });
});
