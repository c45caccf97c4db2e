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

/** Another replica's row as a renewal sees it: its claim, its current share, and for how long a lowered one still counts. */
export interface OtherShare extends ShareClaim {
  /** Its current share (what it holds once its lowered one, if any, no longer counts). */
  share: number;
  /** ms until its lowered share stops counting as held (0: none does). */
  priorMs: number;
}

/** A grant: the share usable now and, if other replicas' lowered shares still count as held, a larger one later. */
export interface ShareSchedule {
  share: number;
  later: { share: number; afterMs: number } | null;
}

/**
 * The share this replica may use now (`shareFor`) and the one it may use once the other replicas' lowered shares stop
 * counting, with when. Granting the later share at once saves a renewal round trip (a period plus the round trip, over a
 * second on a loaded machine) between a replica lowering its share and the others taking it up: the row records the
 * later share from now, so every other replica counts it as held, and this replica starts using it only after the
 * moment the lowered shares end.
 */
export function shareSchedule(rate: number, mine: Pick<ShareClaim, 'demand' | 'saturated'>, others: OtherShare[]): ShareSchedule {
  const share = shareFor(rate, mine, others);
  const lowering = others.filter((o) => o.priorMs > 0 && o.holding > o.share);
  if (lowering.length === 0) return { share, later: null };
  const later = shareFor(rate, mine, others.map((o) => ({ ...o, holding: o.priorMs > 0 ? o.share : o.holding })));
  if (later <= share) return { share, later: null };
  return { share, later: { share: later, afterMs: Math.max(...lowering.map((o) => o.priorMs)) } };
}

/**
 * Ownership (docs/decisions/0094): the whole limit to one replica at a time, none to the others, whatever their demand.
 * `others` are the other replicas' rows: one holding anything (its share, or a given-up one still counted) owns it.
 * Answers the share (the whole rate or nothing) and the owner when it is another replica.
 */
export function ownershipGrant(rate: number, others: Array<{ instanceId: string; holding: number }>): { share: number; owner: string | null } {
  const holder = others.filter((o) => o.holding > 0).sort((a, b) => b.holding - a.holding)[0];
  return holder ? { share: 0, owner: holder.instanceId } : { share: rate, owner: null };
}

/** A replica's local view of one limit's share. */
interface LocalShare {
  /** The configured rate the share was granted for. */
  rate: number;
  share: number;
  /** A larger share granted to start at clock() `at` (other replicas' lowered shares stop counting then). */
  later: { share: number; at: number } | null;
  /** clock() until which the share may be used (the grant's lease, less the hold horizon). */
  validUntil: number;
  /** Messages booked on this limit since `since`. */
  used: number;
  since: number;
  /** clock() of the last booking. */
  lastUse: number;
  /** clock() of the latest slot booked on the limit (whichever limit held the message back). */
  bookedUntil: number;
  /** Ownership mode: the replica that holds the whole limit (null: this one, or nobody yet). */
  owner: string | null;
}

/**
 * A replica's own backlog of one limit: the messages this limit held back (their turn was later than now because of
 * it), in memory until their turn (`held`) or given back to the queue until then (`deferred`; the queue hands them back
 * to this replica first, see MessageRepository.claim). A message leaves it when it goes out or comes back.
 */
interface Backlog {
  /** message id -> clock() of its turn */
  held: Map<string, number>;
  deferred: Map<string, number>;
}

/** `none`: no share here; in ownership mode `owner` is the replica that paces the limit (docs/decisions/0094). */
export type ShareState = { kind: 'unlimited' } | { kind: 'share'; rate: number } | { kind: 'unknown' } | { kind: 'none'; owner?: string };

/** What a renewal asks for one limit. */
export interface ShareClaimRequest {
  key: ShareKey;
  rate: number;
  /** Messages per second booked since the last renewal (since the backlog ran out, if it did). */
  demand: number;
  /** Its own backlog of the limit is not empty: it wants as much as it can get. */
  saturated: boolean;
  /** ms until the last message booked on the limit goes out: how long a lowered share still counts as held. */
  pendingMs: number;
}

/** A given-back message whose turn passed this long ago without it coming back was taken by another replica. */
const DEFERRED_GRACE_MS = 5000;

/**
 * The replica's side: the shares it holds, what it used of them since the last renewal, and its own backlog of each
 * limit. A limit with a backlog wants as much as it can get; the moment the backlog runs out the replica renews at once
 * (`onDrained`) asking only for what new messages need, so the share goes to the replicas that still have a backlog
 * instead of staying idle here (what it booked lately still counts as its demand, so a backlog that only ran out
 * between two fetches from the bus keeps its share); when messages come again and are held back, the backlog is not
 * empty, and the next renewal asks for a fair share again.
 */
export class LocalShares {
  private readonly shares = new Map<ShareKey, LocalShare>();
  private readonly backlogs = new Map<ShareKey, Backlog>();
  /** Limits asked about with no grant yet: the next renewal asks for them. */
  private readonly wanted = new Set<ShareKey>();
  /** Limits with messages waiting for a share this replica does not have (since the last renewal). */
  private readonly starving = new Set<ShareKey>();
  private readonly maybeDrained = new Set<ShareKey>();
  private drainCheck = false;

  constructor(
    private readonly clock: () => number = () => performance.now(),
    /** Called (once per turn of the event loop) with the limits whose backlog just ran out. */
    private readonly onDrained: (keys: ShareKey[]) => void = () => undefined,
  ) {}

  /** What this replica may use of a limit configured at `rate` (0: no limit). */
  state(key: ShareKey, rate: number): ShareState {
    if (!(rate > 0)) return { kind: 'unlimited' };
    const s = this.shares.get(key);
    if (!s || s.rate !== rate) {
      this.wanted.add(key);
      return { kind: 'unknown' };
    }
    const now = this.clock();
    if (s.validUntil < now) return { kind: 'unknown' };
    if (s.later && s.later.at <= now) {
      s.share = s.later.share;
      s.later = null;
    }
    if (s.share <= 0) return s.owner ? { kind: 'none', owner: s.owner } : { kind: 'none' };
    return { kind: 'share', rate: s.share };
  }

  /** The share granted for a limit now (0: none). */
  shareOf(key: ShareKey): number {
    const s = this.shares.get(key);
    if (!s) return 0;
    return s.later && s.later.at <= this.clock() ? s.later.share : s.share;
  }

  private backlog(key: ShareKey): Backlog {
    let b = this.backlogs.get(key);
    if (!b) {
      b = { held: new Map(), deferred: new Map() };
      this.backlogs.set(key, b);
    }
    return b;
  }

  /**
   * Message `id` was booked on the limit, to go out in `waitMs`; `bound`: this limit held it back (it waits in memory
   * until its turn, in this limit's backlog).
   */
  booked(key: ShareKey, id: string, waitMs = 0, bound = waitMs > 0): void {
    const now = this.clock();
    const s = this.shares.get(key);
    if (s) {
      s.used++;
      s.lastUse = now;
      s.bookedUntil = Math.max(s.bookedUntil, now + waitMs);
    }
    if (bound && waitMs > 0) this.backlog(key).held.set(id, now + waitMs);
  }

  /**
   * The limit held message `id` back beyond the booking horizon: it waits in memory, not booked yet, its turn about
   * `turnMs` from now (in the backlog as a booked one; not counted as used).
   */
  parked(key: ShareKey, id: string, turnMs: number): void {
    const s = this.shares.get(key);
    if (s) s.lastUse = this.clock();
    this.backlog(key).held.set(id, this.clock() + turnMs);
  }

  /** The limit held message `id` back beyond the replica's horizon: given back to the queue until `forMs` from now. */
  gaveBack(key: ShareKey, id: string, forMs: number): void {
    const s = this.shares.get(key);
    if (s) s.lastUse = this.clock();
    this.backlog(key).deferred.set(id, this.clock() + forMs);
  }

  /** Message `id` went out, or came back from the queue, or was dropped: no longer in these limits' backlogs. */
  left(keys: ShareKey[], id: string): void {
    for (const key of keys) {
      const b = this.backlogs.get(key);
      if (b && (b.held.delete(id) || b.deferred.delete(id))) this.checkDrained(key);
    }
  }

  /** Messages of the limit wait for a share this replica does not have: ask for as much as it can get. */
  starved(key: ShareKey): void {
    this.wanted.add(key);
    this.starving.add(key);
    const s = this.shares.get(key);
    if (s) s.lastUse = this.clock();
  }

  /** Messages in the backlog of a limit (given-back ones whose turn passed long ago were taken by another replica). */
  backlogSize(key: ShareKey): number {
    const b = this.backlogs.get(key);
    if (!b) return 0;
    const stale = this.clock() - DEFERRED_GRACE_MS;
    for (const [id, due] of b.deferred) if (due < stale) b.deferred.delete(id);
    return b.held.size + b.deferred.size;
  }

  private checkDrained(key: ShareKey): void {
    this.maybeDrained.add(key);
    if (this.drainCheck) return;
    this.drainCheck = true;
    // after the current turn: a message that came back is usually booked again at once
    setImmediate(() => {
      this.drainCheck = false;
      const drained: ShareKey[] = [];
      for (const k of this.maybeDrained) {
        // what it asks for from now on is what it booked lately: a quarter more than that, no longer all it can get
        if (this.backlogSize(k) === 0) drained.push(k);
      }
      this.maybeDrained.clear();
      if (drained.length) this.onDrained(drained);
    });
  }

  /**
   * The claims to renew: every limit used within `idleMs`, newly wanted or with a backlog, with the demand since the
   * last renewal; and the limits to give up (unused for `idleMs`). `rateOf` is the limit's configured rate now.
   */
  renewal(idleMs: number, rateOf: (key: ShareKey) => number): { claims: ShareClaimRequest[]; drop: ShareKey[] } {
    const now = this.clock();
    const claims: ShareClaimRequest[] = [];
    const drop: ShareKey[] = [];
    const keys = new Set<ShareKey>([...this.shares.keys(), ...this.wanted]);
    for (const key of keys) {
      const rate = rateOf(key);
      const s = this.shares.get(key);
      const backlog = this.backlogSize(key);
      const idle = s ? now - s.lastUse > idleMs && !this.wanted.has(key) && backlog === 0 : false;
      if (!(rate > 0) || idle) {
        if (s) drop.push(key);
        continue;
      }
      const pendingUntil = Math.max(now, s?.bookedUntil ?? 0);
      claims.push({
        key,
        rate,
        demand: s ? s.used / Math.max(0.05, (now - s.since) / 1000) : 0,
        saturated: !s || backlog > 0 || this.starving.has(key),
        pendingMs: Math.ceil(pendingUntil - now),
      });
    }
    return { claims, drop };
  }

  /** The renewal committed at `startedAt` (this clock) with a lease of `validMs`: the new shares. */
  granted(
    startedAt: number,
    validMs: number,
    grants: Array<{ key: ShareKey; rate: number; share: number; later?: { share: number; afterMs: number } | null; owner?: string | null }>,
    dropped: ShareKey[],
  ): void {
    const now = this.clock();
    for (const key of dropped) this.shares.delete(key);
    for (const g of grants) {
      const prev = this.shares.get(g.key);
      // a later share counts from now (the answer's arrival), never from before: the database measured `afterMs` from
      // a moment between the renewal's start and now
      const later = g.later ? { share: g.later.share, at: now + g.later.afterMs } : null;
      this.shares.set(g.key, { rate: g.rate, share: g.share, later, validUntil: startedAt + validMs, used: 0, since: now, lastUse: prev?.lastUse ?? now, bookedUntil: prev?.bookedUntil ?? 0, owner: g.owner ?? null });
      this.wanted.delete(g.key);
      this.starving.delete(g.key);
    }
    for (const [key, b] of this.backlogs) if (!this.shares.has(key) && b.held.size === 0 && this.backlogSize(key) === 0) this.backlogs.delete(key);
  }

  /** Whether a renewal has anything to ask for. */
  get active(): boolean {
    return this.shares.size > 0 || this.wanted.size > 0;
  }

  /** Forgets every share (the replica stops). */
  clear(): void {
    this.shares.clear();
    this.backlogs.clear();
    this.wanted.clear();
    this.starving.clear();
  }
}
