/**
 * Token buckets keyed by account or stream: `rate` tokens a second, holding at most `rate` (one second of burst).
 * Time comes from the caller, so tests move a clock instead of sleeping.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number; rate: number }>();

  constructor(private readonly maxKeys = 100_000) {}

  /** Takes one token; false when the bucket is empty. A rate of 0 or less never passes. */
  take(key: string, rate: number, nowMs: number): boolean {
    if (!(rate > 0)) return false;
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= this.maxKeys) this.evictOne();
      b = { tokens: rate, at: nowMs, rate };
      this.buckets.set(key, b);
    } else {
      if (b.rate !== rate) b.tokens = Math.min(b.tokens, rate);
      b.rate = rate;
      const elapsed = Math.max(0, nowMs - b.at) / 1000;
      b.tokens = Math.min(rate, b.tokens + elapsed * rate);
      b.at = nowMs;
    }
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** Gives back a token taken for a send that another limit then refused. */
  refund(key: string): void {
    const b = this.buckets.get(key);
    if (b) b.tokens = Math.min(b.rate, b.tokens + 1);
  }

  private evictOne(): void {
    const first = this.buckets.keys().next();
    if (!first.done) this.buckets.delete(first.value);
  }
}
