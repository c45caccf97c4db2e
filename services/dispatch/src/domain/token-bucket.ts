/** A clock in milliseconds; tests pass a fake one. */
export type Now = () => number;

/** Slack for float sums of fractional intervals (1000 / rate). */
const EPS = 1e-9;

/**
 * Token bucket: `rate` tokens per second, at most `burst` banked. `take()` answers 0 when the tokens were taken, else
 * how many ms until they will be there (nothing taken). Kept as a theoretical arrival time (GCRA): refill follows
 * elapsed time with fractional tokens, so the long-run rate is exact however irregular the callers are: over T seconds
 * at most burst + rate*T pass; and a slot can be reserved for a later moment (`reserveNotBefore`).
 */
export class TokenBucket {
  /** When the bucket is full again if nothing more is taken; at or before now: full. */
  private tat: number;
  /** ms per token. */
  private readonly interval: number;
  /** The latest reservation, so that `cancel()` can undo it exactly. */
  private last: { before: number; after: number } | null = null;

  constructor(
    readonly rate: number,
    readonly burst: number,
    private readonly now: Now = Date.now,
  ) {
    if (!(rate > 0)) throw new Error('TokenBucket: rate must be positive');
    if (!(burst >= 1)) throw new Error('TokenBucket: burst must be at least 1');
    this.interval = 1000 / rate;
    this.tat = now();
  }

  /** The burst that keeps a bucket within about 2% of its rate over a one-second window: 20 ms of traffic. */
  static defaultBurst(rate: number): number {
    return Math.max(1, Math.ceil(rate / 50));
  }

  /** Tokens at `t`: up to `burst`, negative while reservations wait for their slots. */
  private level(t: number): number {
    return this.burst - Math.max(0, this.tat - t) / this.interval;
  }

  /** ms until `n` tokens are there at `t` (0: now). */
  private shortfall(n: number, t: number): number {
    const short = n - this.level(t);
    return short <= EPS ? 0 : Math.max(1, Math.ceil(short * this.interval - EPS));
  }

  /** Takes `n` tokens or returns the wait in ms (>= 1) after which they will be available. */
  take(n = 1): number {
    const t = this.now();
    const wait = this.shortfall(n, t);
    if (wait === 0) this.tat = Math.max(this.tat, t) + n * this.interval;
    return wait;
  }

  /** Wait until `n` tokens could be taken, without taking them. */
  waitFor(n = 1): number {
    return this.shortfall(n, this.now());
  }

  /**
   * Takes `n` tokens even if that leaves the bucket in debt, and answers when they are really there (0 = now). Callers
   * that hold the message until then send at exactly the bucket's rate; `refund` undoes a reservation not used.
   */
  reserve(n = 1): number {
    const t = this.now();
    this.tat = Math.max(this.tat, t) + n * this.interval;
    const level = this.level(t);
    return level >= -EPS ? 0 : Math.ceil(-level * this.interval - EPS);
  }

  /**
   * Reserves one slot at `earliest` (a time in ms) or, if the bucket has none then, at its next free one; answers that
   * time. The bucket counts the token as taken at that moment, so a message held until then keeps the bucket's
   * rate over any window of its actual send times. `cancel()` undoes it.
   */
  reserveNotBefore(earliest: number): number {
    const at = Math.max(this.now(), earliest, this.tat - (this.burst - 1) * this.interval);
    const before = this.tat;
    this.tat = Math.max(this.tat, at) + this.interval;
    this.last = { before, after: this.tat };
    return at;
  }

  /** The first moment one token is there (now at the earliest). */
  nextSlot(): number {
    return Math.max(this.now(), this.tat - (this.burst - 1) * this.interval);
  }

  /** Undoes the latest `reserveNotBefore` exactly; if the bucket was used since, gives one token back instead. */
  cancel(): void {
    if (this.last && this.last.after === this.tat) this.tat = this.last.before;
    else this.refund();
    this.last = null;
  }

  /** Gives tokens back (a send that did not happen after all). */
  refund(n = 1): void {
    this.tat = Math.max(this.now(), this.tat - n * this.interval);
  }

  available(): number {
    return this.level(this.now());
  }

  /**
   * This bucket at another rate, keeping what was already handed out: a debt (messages reserved and still waiting for
   * their slot) is kept as a number of messages, so new ones queue behind those already scheduled at the new rate
   * instead of finding a full bucket (lowering a rate would otherwise let a burst through); banked tokens are kept up
   * to the new burst. A raised rate starts after the last slot already reserved: those messages go out at the old pace
   * until then, and new ones slotted among them at the new rate would add up to more than it in the second after.
   */
  retuned(rate: number, burst: number): TokenBucket {
    const t = this.now();
    const next = new TokenBucket(rate, burst, this.now);
    next.tat = Math.max(t + (burst - Math.min(burst, this.level(t))) * next.interval, this.tat);
    return next;
  }
}

/**
 * An account's sending slots on a 10 ms grid: each cell holds its exact share of the rate (`rate / 100` a cell, the
 * fractions spread so that any run of cells holds its share to within one message), and a message books the first
 * cell with room at or after the moment it could go. Unlike one token bucket, a message booked late (its stream is
 * the limit) takes a late cell and leaves the earlier ones to the account's other streams, so the account is charged
 * when each message really goes. Unused room of the last `burst / rate` seconds may still be taken now (the bucket's
 * burst): over any T seconds at most `rate * T + burst + 1` messages go (the one for the grid's rounding).
 */
export class SlotCalendar {
  static readonly CELL_MS = 10;
  /** How far ahead a booking may look for room; beyond, the caller gives the message back to its queue anyway. */
  private static readonly MAX_CELLS = 6000;
  private used: Map<number, number>;
  private readonly perCell: number;
  private readonly lookback: number;
  /** No cell from `oldest` up to here has room (a scan may start here). */
  private full: number;
  private oldest: number;
  private last: number | null = null;

  constructor(
    readonly rate: number,
    readonly burst: number,
    private readonly now: Now = Date.now,
  ) {
    if (!(rate > 0)) throw new Error('SlotCalendar: rate must be positive');
    this.perCell = (rate * SlotCalendar.CELL_MS) / 1000;
    this.lookback = Math.max(1, Math.ceil((burst * 1000) / rate / SlotCalendar.CELL_MS));
    this.oldest = Math.floor(now() / SlotCalendar.CELL_MS) - this.lookback;
    this.used = new Map();
    this.full = this.oldest;
  }

  private room(cell: number): number {
    const capacity = Math.floor((cell + 1) * this.perCell + EPS) - Math.floor(cell * this.perCell + EPS);
    return capacity - (this.used.get(cell) ?? 0);
  }

  /** Drops the cells too old to be taken any more. */
  private forget(oldest: number): void {
    if (oldest <= this.oldest) return;
    if (oldest - this.oldest > this.used.size) {
      for (const cell of this.used.keys()) if (cell < oldest) this.used.delete(cell);
    } else for (let c = this.oldest; c < oldest; c++) this.used.delete(c);
    this.oldest = oldest;
    this.full = Math.max(this.full, oldest);
  }

  /** Books one message at `earliest` (ms) or at the first room after it; answers when it goes. `cancel()` undoes it. */
  reserveNotBefore(earliest: number): number {
    const t = this.now();
    const nowCell = Math.floor(t / SlotCalendar.CELL_MS);
    this.forget(nowCell - this.lookback);
    const from = Math.floor(Math.max(t, earliest) / SlotCalendar.CELL_MS) - this.lookback;
    let cell = Math.max(from, this.oldest, from <= this.full ? this.full : from);
    const limit = cell + SlotCalendar.MAX_CELLS;
    while (this.room(cell) <= 0 && cell < limit) cell++;
    if (from <= this.full && cell > this.full) this.full = cell;
    this.used.set(cell, (this.used.get(cell) ?? 0) + 1);
    this.last = cell;
    return Math.max(t, earliest, cell * SlotCalendar.CELL_MS);
  }

  /** Undoes the latest booking. */
  cancel(): void {
    if (this.last === null) return;
    const n = (this.used.get(this.last) ?? 0) - 1;
    if (n > 0) this.used.set(this.last, n);
    else this.used.delete(this.last);
    this.full = Math.min(this.full, this.last);
    this.last = null;
  }

  /**
   * This calendar at another rate, with the messages already booked kept where they are and counted at the new rate:
   * each takes, in time order, the first cell with room at or after its own. Kept only in their own cells, they would
   * not count against the new rate's cells (at another rate other cells have the room), and a raised rate would let
   * its whole rate through on top of them.
   */
  retuned(rate: number, burst: number): SlotCalendar {
    const next = new SlotCalendar(rate, burst, this.now);
    const booked = [...this.used].filter(([cell]) => cell >= next.oldest).sort((a, b) => a[0] - b[0]);
    let cell = next.oldest;
    for (const [at, n] of booked) {
      for (let k = 0; k < n; k++) {
        cell = Math.max(cell, at);
        while (next.room(cell) <= 0) cell++;
        next.used.set(cell, (next.used.get(cell) ?? 0) + 1);
      }
    }
    return next;
  }
}

export interface LimitKey {
  accountId: string;
  streamId: string;
}

/**
 * The per-account and per-stream limits of one dispatch process (vendor connection buckets live in the adapters).
 * Account rates come from the accounts read model (tps; 0 = no limit), stream rates from the streams read model
 * (`params.tps` of the stream; 0 = no limit of its own). An account's calendar is shared by all its streams.
 *
 * A message goes at the first moment both allow: from its stream's next slot, the first account cell with room. Both
 * are charged at that moment, so the actual sends of a stream stay within `burst + rate * T` over any T seconds, and
 * the account's within one more. A message whose turn is over the caller's horizon away is given back (`release`, exact right
 * after its `reserve`) and offered again later. A stream gets its whole rate whenever its account has room.
 */
export class LimitBook {
  private readonly accounts = new Map<string, SlotCalendar>();
  private readonly streams = new Map<string, TokenBucket>();

  constructor(
    private readonly accountTps: (accountId: string) => number,
    private readonly streamTps: (streamId: string) => number,
    // read at each call rather than bound once, so a test that moves the process clock moves the limits with it
    private readonly now: Now = () => Date.now(),
  ) {}

  private limiter<L extends { rate: number; retuned(rate: number, burst: number): L }>(map: Map<string, L>, key: string, rate: number, make: (rate: number, burst: number) => L): L | null {
    if (!(rate > 0)) {
      map.delete(key);
      return null;
    }
    const current = map.get(key);
    if (current && current.rate === rate) return current;
    const burst = TokenBucket.defaultBurst(rate);
    const next = current ? current.retuned(rate, burst) : make(rate, burst);
    map.set(key, next);
    return next;
  }

  /** Which limit held the last reserved message back (its turn was later than now because of it). */
  readonly lastBound = { account: false, stream: false };

  /** Reserves one message on the account and stream limits: 0 = may go now, else the ms until its turn. */
  reserve(key: LimitKey): number {
    const t = this.now();
    const acc = this.limiter(this.accounts, key.accountId, this.accountTps(key.accountId), (r, b) => new SlotCalendar(r, b, this.now));
    const str = this.limiter(this.streams, key.streamId, this.streamTps(key.streamId), (r, b) => new TokenBucket(r, b, this.now));
    const streamFrom = str ? str.nextSlot() : t;
    const at = acc ? acc.reserveNotBefore(streamFrom) : streamFrom;
    // at or after the stream's next slot, so the stream takes exactly `at`
    if (str) str.reserveNotBefore(at);
    this.lastBound.stream = streamFrom > t + EPS;
    this.lastBound.account = at > Math.max(t, streamFrom) + EPS;
    return Math.max(0, Math.ceil(at - t - EPS));
  }

  /** Undoes a reservation (the message was given back to the queue instead); exact right after its `reserve`. */
  release(key: LimitKey): void {
    this.accounts.get(key.accountId)?.cancel();
    this.streams.get(key.streamId)?.cancel();
  }
}

/**
 * The sends of one limit over the last second, as a carrier counts them (docs/decisions/0094): a send may go at `t`
 * only if the send `rate` places back went out at least `windowMs` before, so no one-second window, wherever it starts,
 * holds more than `rate` sends. The calendar and the buckets plan turns; a timer that fires late (an event loop stalled
 * on a loaded machine) would send the stalled messages together with the next ones, over the rate in the window that
 * spans both; this check, at the moment of the send, holds those until the window has room, and lets the ones a stall
 * delayed catch up as far as the window allows (so a stall costs no rate when the window had room).
 */
export class SendWindow {
  /** Send times, a ring of the last `size` sends. */
  private readonly times: Float64Array;
  private next = 0;
  private count = 0;
  private readonly size: number;

  constructor(
    readonly rate: number,
    private readonly windowMs = 1000,
  ) {
    this.size = Math.max(1, Math.floor(rate));
    this.times = new Float64Array(this.size);
  }

  /** ms until a send may go at `t` (0: now). */
  waitAt(t: number): number {
    if (this.count < this.size) return 0;
    const oldest = this.times[this.next];
    const free = oldest + this.windowMs;
    return free <= t ? 0 : Math.max(1, Math.ceil(free - t));
  }

  /** Records a send at `t` (after `waitAt(t)` answered 0). */
  sent(t: number): void {
    this.times[this.next] = t;
    this.next = (this.next + 1) % this.size;
    if (this.count < this.size) this.count++;
  }
}
