/**
 * Shares of an account's or a stream's rate across dispatch replicas (docs/decisions/0047-limits-across-replicas.md).
 *
 * Each replica paces the messages it sends with its own buckets (`LimitBook`), at its *share* of the configured rate
 * rather than at the whole rate. Shares are granted in PostgreSQL (`dispatch.rate_share`, one row per limit and
 * replica) under one lock, so that at every moment the shares a replica may still be using add up to at most the
 * configured rate: a replica only takes what the others do not hold, and a replica that lowers its share keeps
 * counting the old one for the hold horizon (messages it already booked go out within that time). What a replica asks
 * for is its demand: a replica held back by a limit wants as much as it can get; one that is not wants a little more
 * than it used. Max-min fairness over those wants, and what nobody wants spread over everyone, so unused room is given
 * back to the replicas that need it at their next renewal.
 */

/** A limit shared across replicas: `a:<accountId>` or `s:<streamId>`. */
export type ShareKey = string;

export const accountShareKey = (accountId: string): ShareKey => `a:${accountId}`;
export const streamShareKey = (streamId: string): ShareKey => `s:${streamId}`;

/** What one replica reported for one limit at its last renewal. */
export interface ShareClaim {
  /** The share it may be using now (the higher of its share and a lowered one still within the hold horizon). */
  holding: number;
  /** Messages per second it used over its last period. */
  demand: number;
  /** Held back by this limit during its last period: it would use more. */
  saturated: boolean;
}

/** Room an unsaturated replica gets above what it used: a quarter more, and at least 2% of the rate. */
export function wantOf(rate: number, c: Pick<ShareClaim, 'demand' | 'saturated'>): number {
  if (c.saturated) return Infinity;
  return Math.min(rate, c.demand * 1.25 + Math.max(1, rate * 0.02));
}

/**
 * The shares max-min fairness gives `rate` among `wants` (same order): the smallest wants are met first, the rest is
 * split evenly among the others; what no one wants is spread evenly over everyone. The result sums to `rate`.
 */
export function fairShares(rate: number, wants: number[]): number[] {
  const n = wants.length;
  if (n === 0) return [];
  const out = new Array<number>(n).fill(0);
  const order = wants.map((w, i) => ({ w, i })).sort((a, b) => a.w - b.w);
  let left = rate;
  for (let k = 0; k < n; k++) {
    const fair = left / (n - k);
    const give = Math.min(order[k].w, fair);
    out[order[k].i] = give;
    left -= give;
  }
  if (left > 1e-9) for (let i = 0; i < n; i++) out[i] += left / n;
  return out;
}

/**
 * The share this replica may take now: its fair share among every replica's claim, but never more than the others do
 * not hold. Others holding more than their fair share lower theirs at their own renewal; this replica then gets the
 * rest at its next one.
 */
export function shareFor(rate: number, mine: Pick<ShareClaim, 'demand' | 'saturated'>, others: ShareClaim[]): number {
  const wants = [wantOf(rate, mine), ...others.map((o) => wantOf(rate, o))];
  const target = fairShares(rate, wants)[0];
  const free = rate - others.reduce((s, o) => s + o.holding, 0);
  // a hundredth of a message per second: shares that move by less do not retune the buckets
  return Math.max(0, Math.floor(Math.min(target, free) * 100) / 100);
}

/** A replica's local view of one limit's share. */
interface LocalShare {
  /** The configured rate the share was granted for. */
  rate: number;
  share: number;
  /** performance.now() until which the share may be used (the grant's lease, less the hold horizon). */
  validUntil: number;
  /** Messages booked on this limit since the last renewal. */
  used: number;
  saturated: boolean;
  /** Messages held back by this limit wait until then (given back to the queue, or held): still wanting more. */
  saturatedUntil: number;
  /** performance.now() of the last booking. */
  lastUse: number;
}

export type ShareState = { kind: 'unlimited' } | { kind: 'share'; rate: number } | { kind: 'unknown' } | { kind: 'none' };

/** The replica's side: the shares it holds, and what it used of them since the last renewal. */
export class LocalShares {
  private readonly shares = new Map<ShareKey, LocalShare>();
  /** Limits asked about with no grant yet: the next renewal asks for them. */
  private readonly wanted = new Set<ShareKey>();
  private periodStart = performance.now();

  /**
   * `stickyMs`: a limit that held this replica back is reported as such for that long after. Messages given back to
   * the shared queue come back to either replica, so a replica's own backlog of a limit comes and goes between
   * renewals; without the memory the shares would flip between the replicas, each flip costing the hold horizon.
   */
  constructor(
    private readonly clock: () => number = () => performance.now(),
    private readonly stickyMs = 2000,
  ) {}

  /** What this replica may use of a limit configured at `rate` (0: no limit). */
  state(key: ShareKey, rate: number): ShareState {
    if (!(rate > 0)) return { kind: 'unlimited' };
    const s = this.shares.get(key);
    if (!s || s.rate !== rate) {
      this.wanted.add(key);
      return { kind: 'unknown' };
    }
    if (s.validUntil < this.clock()) return { kind: 'unknown' };
    if (s.share <= 0) return { kind: 'none' };
    return { kind: 'share', rate: s.share };
  }

  /** A message was booked on the limit; `waitMs` > 0: the limit held it back that long. */
  booked(key: ShareKey, waitMs = 0): void {
    const s = this.shares.get(key);
    if (!s) return;
    s.used++;
    s.lastUse = this.clock();
    if (waitMs > 0) {
      s.saturated = true;
      s.saturatedUntil = Math.max(s.saturatedUntil, s.lastUse + waitMs + this.stickyMs);
    }
  }

  /** A booking was undone. */
  unbooked(key: ShareKey): void {
    const s = this.shares.get(key);
    if (s && s.used > 0) s.used--;
  }

  /**
   * Messages of the limit wait for a share this replica does not have, or were given back to the queue until their
   * turn `forMs` from now: ask for as much as it can get until then.
   */
  starved(key: ShareKey, forMs = 0): void {
    this.wanted.add(key);
    const s = this.shares.get(key);
    if (s) {
      s.saturated = true;
      s.lastUse = this.clock();
      s.saturatedUntil = Math.max(s.saturatedUntil, s.lastUse + forMs + this.stickyMs);
    }
  }

  /**
   * The claims to renew: every limit used within `idleMs` or newly wanted, with the demand of the period since the
   * last renewal; and the limits to give up (unused for `idleMs`). `rateOf` is the limit's configured rate now.
   */
  renewal(idleMs: number, rateOf: (key: ShareKey) => number): { claims: Array<{ key: ShareKey; rate: number; demand: number; saturated: boolean }>; drop: ShareKey[] } {
    const now = this.clock();
    const seconds = Math.max(0.05, (now - this.periodStart) / 1000);
    const claims: Array<{ key: ShareKey; rate: number; demand: number; saturated: boolean }> = [];
    const drop: ShareKey[] = [];
    const keys = new Set<ShareKey>([...this.shares.keys(), ...this.wanted]);
    for (const key of keys) {
      const rate = rateOf(key);
      const s = this.shares.get(key);
      const idle = s ? now - s.lastUse > idleMs && !this.wanted.has(key) : false;
      if (!(rate > 0) || idle) {
        if (s) drop.push(key);
        continue;
      }
      claims.push({ key, rate, demand: s ? s.used / seconds : 0, saturated: s ? s.saturated || s.saturatedUntil > now : true });
    }
    return { claims, drop };
  }

  /** The renewal committed at `startedAt` (this clock) with a lease of `validMs`: the new shares. */
  granted(startedAt: number, validMs: number, grants: Array<{ key: ShareKey; rate: number; share: number }>, dropped: ShareKey[]): void {
    for (const key of dropped) this.shares.delete(key);
    for (const g of grants) {
      const prev = this.shares.get(g.key);
      this.shares.set(g.key, { rate: g.rate, share: g.share, validUntil: startedAt + validMs, used: 0, saturated: false, saturatedUntil: prev?.saturatedUntil ?? 0, lastUse: prev?.lastUse ?? this.clock() });
      this.wanted.delete(g.key);
    }
    this.periodStart = this.clock();
  }

  /** Whether a renewal has anything to ask for. */
  get active(): boolean {
    return this.shares.size > 0 || this.wanted.size > 0;
  }

  /** Forgets every share (the replica stops). */
  clear(): void {
    this.shares.clear();
    this.wanted.clear();
  }
}
