/** A clock in milliseconds; tests pass a fake one. */
export type Now = () => number;

/**
 * Token bucket: `rate` tokens per second, at most `burst` banked. `take()` answers 0 when the tokens were taken, else
 * how many ms until they will be there (nothing taken). Refill is computed from elapsed time with fractional tokens,
 * so the long-run rate is exact however irregular the callers are: over T seconds at most burst + rate*T pass.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly rate: number,
    readonly burst: number,
    private readonly now: Now = Date.now,
  ) {
    if (!(rate > 0)) throw new Error('TokenBucket: rate must be positive');
    if (!(burst >= 1)) throw new Error('TokenBucket: burst must be at least 1');
    this.tokens = burst;
    this.last = now();
  }

  /** The burst that keeps a bucket within about 2% of its rate over a one-second window: 20 ms of traffic. */
  static defaultBurst(rate: number): number {
    return Math.max(1, Math.ceil(rate / 50));
  }

  private refill(): void {
    const t = this.now();
    if (t > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) * this.rate) / 1000);
      this.last = t;
    }
  }

  /** Takes `n` tokens or returns the wait in ms (>= 1) after which they will be available. */
  take(n = 1): number {
    this.refill();
    if (this.tokens >= n) {
      this.tokens -= n;
      return 0;
    }
    return Math.max(1, Math.ceil(((n - this.tokens) * 1000) / this.rate));
  }

  /** Wait until `n` tokens could be taken, without taking them. */
  waitFor(n = 1): number {
    this.refill();
    return this.tokens >= n ? 0 : Math.max(1, Math.ceil(((n - this.tokens) * 1000) / this.rate));
  }

  /**
   * Takes `n` tokens even if that leaves the bucket in debt, and answers when they are really there (0 = now). Callers
   * that hold the message until then send at exactly the bucket's rate; `refund` undoes a reservation not used.
   */
  reserve(n = 1): number {
    this.refill();
    this.tokens -= n;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens * 1000) / this.rate);
  }

  /** Gives tokens back (a send that did not happen after all). */
  refund(n = 1): void {
    this.tokens = Math.min(this.burst, this.tokens + n);
  }

  available(): number {
    this.refill();
    return this.tokens;
  }
}

export interface LimitKey {
  accountId: string;
  streamId: string;
}

/**
 * The per-account and per-stream buckets of one dispatch process (vendor connection buckets live in the adapters).
 * Account rates come from the accounts read model (tps; 0 = no limit), stream rates from configuration.
 * A message passes only when both buckets have a token; if the second refuses, the first is refunded.
 */
export class LimitBook {
  private readonly accounts = new Map<string, TokenBucket>();
  private readonly streams = new Map<string, TokenBucket>();

  constructor(
    private readonly accountTps: (accountId: string) => number,
    private readonly streamTps: (streamId: string) => number,
    private readonly now: Now = Date.now,
  ) {}

  private bucket(map: Map<string, TokenBucket>, key: string, rate: number): TokenBucket | null {
    if (!(rate > 0)) {
      map.delete(key);
      return null;
    }
    let b = map.get(key);
    if (!b || b.rate !== rate) {
      b = new TokenBucket(rate, TokenBucket.defaultBurst(rate), this.now);
      map.set(key, b);
    }
    return b;
  }

  /** Reserves one message on the account and stream buckets: 0 = may go now, else the ms until its turn. */
  reserve(key: LimitKey): number {
    const acc = this.bucket(this.accounts, key.accountId, this.accountTps(key.accountId));
    const str = this.bucket(this.streams, key.streamId, this.streamTps(key.streamId));
    return Math.max(acc ? acc.reserve() : 0, str ? str.reserve() : 0);
  }

  /** Undoes a reservation (the message was given back to the queue instead). */
  release(key: LimitKey): void {
    this.accounts.get(key.accountId)?.refund();
    this.streams.get(key.streamId)?.refund();
  }
}
