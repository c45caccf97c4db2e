import { fairShares, LocalShares, ownershipGrant, shareFor, shareSchedule, wantOf } from './rate-shares';

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
    expect(asked.claims).toEqual([{ key: 'a:1', rate: 50, demand: 0, saturated: true, pendingMs: 0 }]);
    shares.granted(now, 1000, [{ key: 'a:1', rate: 50, share: 25 }], []);
    expect(shares.state('a:1', 50)).toEqual({ kind: 'share', rate: 25 });
    // the configured rate changed: the share was for the old one
    expect(shares.state('a:1', 60)).toEqual({ kind: 'unknown' });
    now = 1001;
    expect(shares.state('a:1', 50)).toEqual({ kind: 'unknown' });
  });

  it('reports what it used since the last renewal, and gives up limits it no longer uses', () => {
    let now = 0;
    const shares = new LocalShares(() => now);
    shares.state('a:1', 50);
    shares.state('s:2', 10);
    shares.granted(now, 5000, [
      { key: 'a:1', rate: 50, share: 50 },
      { key: 's:2', rate: 10, share: 10 },
    ], []);
    now = 500;
    for (let i = 0; i < 10; i++) shares.booked('a:1', `m${i}`);
    shares.booked('s:2', 'x');
    expect(shares.renewal(10_000, (k) => (k === 'a:1' ? 50 : 10)).claims).toEqual([
      { key: 'a:1', rate: 50, demand: 20, saturated: false, pendingMs: 0 },
      { key: 's:2', rate: 10, demand: 2, saturated: false, pendingMs: 0 },
    ]);
    shares.granted(now, 5000, [{ key: 'a:1', rate: 50, share: 50 }, { key: 's:2', rate: 10, share: 10 }], []);
    now = 20_000;
    shares.booked('a:1', 'y');
    expect(shares.renewal(10_000, (k) => (k === 'a:1' ? 50 : 10))).toEqual({ claims: [{ key: 'a:1', rate: 50, demand: expect.any(Number), saturated: false, pendingMs: 0 }], drop: ['s:2'] });
  });
});

describe('a replica\'s own backlog of a limit (issue 17: an idle share handed over)', () => {
  const grant = (shares: LocalShares, now: number, share: number) => shares.granted(now, 60_000, [{ key: 's:1', rate: 20, share }], []);
  const claim = (shares: LocalShares) => shares.renewal(10_000, () => 20).claims[0];
  const nextTurn = () => new Promise((r) => setImmediate(r));

  it('wants as much as it can get while messages the limit held back wait here or in the queue, and how long the booked ones take to go out', () => {
    let now = 0;
    const shares = new LocalShares(() => now);
    grant(shares, now, 10);
    shares.booked('s:1', 'held', 700);
    shares.gaveBack('s:1', 'queued', 3000);
    expect(claim(shares)).toMatchObject({ saturated: true, pendingMs: 700 });
    // the held one went out at its turn; the given-back one is still its own backlog
    now = 700;
    shares.left(['s:1'], 'held');
    expect(claim(shares)).toMatchObject({ saturated: true, pendingMs: 0 });
  });

  it('renews at once when its backlog runs out, asking only a quarter over what it booked lately, so a busy replica gets nearly the whole rate', async () => {
    let now = 0;
    const drained: string[][] = [];
    const shares = new LocalShares(() => now, (keys) => drained.push(keys));
    grant(shares, now, 10);
    for (let i = 0; i < 10; i++) shares.booked('s:1', `m${i}`, 100 * i + 1);
    now = 1000;
    for (let i = 0; i < 9; i++) shares.left(['s:1'], `m${i}`);
    await nextTurn();
    expect(drained).toEqual([]);
    shares.left(['s:1'], 'm9');
    await nextTurn();
    expect(drained).toEqual([['s:1']]);
    // nothing waits any more: it asks only a quarter over what it booked lately (nothing since the last renewal)
    shares.granted(now, 60_000, [{ key: 's:1', rate: 20, share: 10 }], []);
    now = 1250;
    const mine = claim(shares);
    expect(mine).toMatchObject({ saturated: false, demand: 0, pendingMs: 0 });
    // the other replica, still held back, then gets all but the idle one's floor (2% of the rate, at least 1/s)
    expect(shareFor(20, { demand: 10, saturated: true }, [{ holding: 10, ...mine }])).toBe(10);
    expect(shareFor(20, { demand: 10, saturated: true }, [{ holding: shareFor(20, mine, [{ holding: 10, demand: 10, saturated: true }]), ...mine }])).toBe(19);
  });

  it('does not call a backlog empty while a message that came back is booked again in the same turn', async () => {
    const drained: string[][] = [];
    const shares = new LocalShares(() => 0, (keys) => drained.push(keys));
    grant(shares, 0, 10);
    shares.gaveBack('s:1', 'm', 1500);
    shares.left(['s:1'], 'm');
    shares.booked('s:1', 'm', 400);
    await nextTurn();
    expect(drained).toEqual([]);
    expect(claim(shares).saturated).toBe(true);
  });

  it('forgets given-back messages another replica took (their turn long past)', () => {
    let now = 0;
    const shares = new LocalShares(() => now);
    grant(shares, now, 10);
    for (let i = 0; i < 20; i++) shares.gaveBack('s:1', `m${i}`, 100 * i);
    expect(shares.backlogSize('s:1')).toBe(20);
    now = 10_000;
    expect(shares.backlogSize('s:1')).toBe(0);
    expect(claim(shares).saturated).toBe(false);
  });
});

describe('a share granted ahead, for when the other replicas\' lowered shares end (issue 17: shares lagging under load)', () => {
  it('grants a newcomer nothing now but its fair share from the moment the lowered share ends, never more than the rate at any moment', () => {
    // the first replica lowered itself from the whole rate to half; its old share counts as held for 800 ms more
    const first = { holding: 40, share: 20, priorMs: 800, demand: 40, saturated: true };
    const plan = shareSchedule(40, { demand: 0, saturated: true }, [first]);
    expect(plan).toEqual({ share: 0, later: { share: 20, afterMs: 800 } });
    // now: 40 held by the first + 0; after 800 ms: 20 + 20
    expect(first.holding + plan.share).toBeLessThanOrEqual(40);
    expect(first.share + plan.later!.share).toBeLessThanOrEqual(40);
  });

  it('grants nothing ahead when no lowered share is pending, or when it would not be more', () => {
    expect(shareSchedule(40, { demand: 0, saturated: true }, [{ holding: 20, share: 20, priorMs: 0, demand: 20, saturated: true }])).toEqual({ share: 20, later: null });
    // the other replica's prior is live but it holds no more than its share: nothing changes when it ends
    expect(shareSchedule(40, { demand: 0, saturated: true }, [{ holding: 20, share: 20, priorMs: 500, demand: 20, saturated: true }])).toEqual({ share: 20, later: null });
  });

  it('never lets what the replicas may use add up to more than the rate at any moment, whatever order they renew in', () => {
    let seed = 11;
    const rnd = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    const rate = 100;
    // per replica: its row as the repository keeps it (share; a lowered share counted until priorUntil), what it uses
    // (its local share, a later one from laterAt) and what its messages booked under older shares still take (until when)
    const rows = [0, 1, 2].map(() => ({ share: 0, prior: 0, priorUntil: 0, local: 0, later: null as null | { share: number; at: number }, booked: [] as Array<{ rate: number; until: number }> }));
    let t = 0;
    const localAt = (r: (typeof rows)[number]) => (r.later && r.later.at <= t ? r.later.share : r.local);
    const inUse = (r: (typeof rows)[number]) => Math.max(localAt(r), ...r.booked.filter((b) => b.until > t).map((b) => b.rate));
    for (let step = 0; step < 2000; step++) {
      t += Math.floor(rnd() * 300);
      const i = Math.floor(rnd() * 3);
      const others = rows
        .filter((_, k) => k !== i)
        .map((r) => ({ holding: Math.max(r.share, r.priorUntil > t ? r.prior : 0), share: r.share, priorMs: r.priorUntil > t && r.prior > r.share ? r.priorUntil - t : 0, demand: r.share, saturated: rnd() < 0.5 }));
      const plan = shareSchedule(rate, { demand: rnd() * 80, saturated: rnd() < 0.5 }, others);
      const stored = plan.later ? plan.later.share : plan.share;
      const me = rows[i];
      // what it booked at its current local share goes out within the booking horizon (up to 1.1 s); a lowered share
      // counts until the last of its booked messages went out (the renewal's pendingMs)
      me.booked.push({ rate: localAt(me), until: t + Math.floor(rnd() * 1100) });
      if (stored < me.share) {
        me.prior = Math.max(me.share, me.priorUntil > t ? me.prior : 0);
        me.priorUntil = Math.max(t + 1, ...me.booked.map((b) => b.until));
      }
      // (a share that grows keeps its old one still counted, as the repository does)
      me.share = stored;
      me.local = plan.share;
      me.later = plan.later ? { share: plan.later.share, at: t + plan.later.afterMs } : null;
      // at this moment and at each moment up to the next renewal, what the replicas may use adds up to at most the rate
      for (const dt of [0, 1, 100, 400, 1300]) {
        const at = t + dt;
        const saved = t;
        t = at;
        expect(sum(rows.map(inUse))).toBeLessThanOrEqual(rate + 1e-9);
        t = saved;
      }
    }
  });

  it('uses the later share only from its start, counted from when the grant arrived', () => {
    let now = 1000;
    const shares = new LocalShares(() => now);
    shares.state('a:1', 40);
    // the renewal started at 600 and its answer arrived at 1000: the later share starts 800 ms after the answer
    shares.granted(600, 60_000, [{ key: 'a:1', rate: 40, share: 0, later: { share: 20, afterMs: 800 } }], []);
    expect(shares.state('a:1', 40)).toEqual({ kind: 'none' });
    now = 1799;
    expect(shares.state('a:1', 40)).toEqual({ kind: 'none' });
    now = 1800;
    expect(shares.state('a:1', 40)).toEqual({ kind: 'share', rate: 20 });
    expect(shares.shareOf('a:1')).toBe(20);
  });
});

describe('ownership of a limit (issue 17: a second replica must not double an account\'s rate; decision 0094)', () => {
  it('gives the whole rate to the first replica that asks and nothing to a second, which learns who holds it', () => {
    expect(ownershipGrant(200, [])).toEqual({ share: 200, owner: null });
    expect(ownershipGrant(200, [{ instanceId: 'A', holding: 200 }])).toEqual({ share: 0, owner: 'A' });
    expect(ownershipGrant(200, [{ instanceId: 'A', holding: 0 }, { instanceId: 'B', holding: 200 }])).toEqual({ share: 0, owner: 'B' });
  });

  it('never lets two replicas hold a limit at once, on a frozen clock and with owners giving it up, whatever order they renew in', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    const rate = 200;
    // per replica: its row (share; a given-up share counted until heldUntil) and what it may use locally
    const rows = [0, 1, 2].map((i) => ({ id: String(i), share: 0, prior: 0, heldUntil: 0, local: 0 }));
    let t = 0;
    const holding = (r: (typeof rows)[number]) => Math.max(r.share, r.heldUntil > t ? r.prior : 0);
    for (let step = 0; step < 3000; step++) {
      // a frozen clock for stretches of renewals (all at the same moment), then a move
      if (rnd() < 0.2) t += Math.floor(rnd() * 400);
      const me = rows[Math.floor(rnd() * 3)];
      if (me.share > 0 && rnd() < 0.1) {
        // the owner gives it up: its share counts until what it booked went out; it stops using it at once
        me.prior = me.share;
        me.heldUntil = t + 1 + Math.floor(rnd() * 1100);
        me.share = 0;
        me.local = 0;
      } else {
        const g = ownershipGrant(rate, rows.filter((r) => r !== me).map((r) => ({ instanceId: r.id, holding: holding(r) })));
        if (g.share === 0) expect(g.owner).not.toBeNull();
        me.share = g.share;
        me.local = g.share;
      }
      // one replica at most uses the rate, and nothing is used while a given-up share still counts
      const users = rows.filter((r) => r.local > 0);
      expect(users.length).toBeLessThanOrEqual(1);
      expect(sum(rows.map(holding))).toBeLessThanOrEqual(rate);
      for (const r of users) expect(rows.filter((o) => o !== r && o.heldUntil > t && o.prior > 0)).toHaveLength(0);
    }
  });
});
