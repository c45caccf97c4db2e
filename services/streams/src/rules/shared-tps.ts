import type { Pool } from 'pg';

/**
 * The stream API's TPS buckets shared by every streams replica (docs/decisions/0067): one token bucket per account and
 * per stream with its own rate, in PostgreSQL (`streams.tps_bucket`), refilled at the rate and holding at most one
 * second of it, exactly as the in-process `TokenBuckets`. A replica takes tokens in small grants (one statement,
 * the row locked for it) and keeps what a grant gave beyond its waiting sends for at most `keepMs`, then gives it back,
 * so all replicas together never take more than one bucket would hand out: N replicas behind the gateway's round
 * robin accept the configured rate, not N times it.
 *
 * Sends of one replica waiting for a key share one statement: a send finding a kept token passes without a round trip.
 */
export class SharedTpsBuckets {
  private readonly kept = new Map<string, { tokens: number; rate: number; timer: NodeJS.Timeout | null }>();
  private readonly waiting = new Map<string, Array<{ rate: number; nowMs: number; resolve: (ok: boolean) => void; reject: (e: unknown) => void }>>();
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly pool: Pool,
    /** How long tokens granted beyond the waiting sends stay with this replica before they go back. */
    private readonly keepMs = 200,
  ) {}

  /** Takes one token: true at once from a kept token, else a promise of the shared bucket's answer. */
  take(key: string, rate: number, nowMs: number): boolean | Promise<boolean> {
    if (!(rate > 0)) return false;
    const k = this.kept.get(key);
    if (k && k.tokens >= 1 && k.rate === rate) {
      k.tokens -= 1;
      return true;
    }
    return new Promise<boolean>((resolve, reject) => {
      const list = this.waiting.get(key) ?? [];
      list.push({ rate, nowMs, resolve, reject });
      this.waiting.set(key, list);
      if (!this.inFlight.has(key)) void this.drain(key);
    });
  }

  /** Gives back a token taken for a send another limit then refused: kept here, returned to the bucket with the rest. */
  refund(key: string): void {
    const k = this.kept.get(key);
    if (k) k.tokens += 1;
    else this.keep(key, 1, Number.NaN);
  }

  /** Returns every kept token to the shared buckets (shutdown). */
  async close(): Promise<void> {
    await Promise.all([...this.kept.keys()].map((key) => this.giveBack(key)));
  }

  private async drain(key: string): Promise<void> {
    this.inFlight.add(key);
    try {
      for (;;) {
        const list = this.waiting.get(key) ?? [];
        this.waiting.delete(key);
        if (list.length === 0) return;
        // kept tokens first (a refund may have put one back meanwhile)
        const k = this.kept.get(key);
        while (k && k.tokens >= 1 && list.length) {
          k.tokens -= 1;
          list.shift()?.resolve(true);
        }
        if (list.length === 0) continue;
        const { rate, nowMs } = list[list.length - 1];
        // a little ahead of the waiting sends (a twentieth of a second of the rate), so a steady stream of sends on one
        // replica costs about 20 statements a second per key, whatever the rate
        const want = list.length + Math.floor(rate / 20);
        let granted = 0;
        try {
          granted = await this.grant(key, rate, nowMs, want);
        } catch (e) {
          for (const w of list) w.reject(e);
          continue;
        }
        for (const w of list) w.resolve(granted-- > 0);
        if (granted > 0) this.keep(key, granted, rate);
      }
    } finally {
      this.inFlight.delete(key);
    }
  }

  private keep(key: string, tokens: number, rate: number): void {
    const k = this.kept.get(key) ?? { tokens: 0, rate, timer: null };
    k.tokens += tokens;
    if (!Number.isNaN(rate)) k.rate = rate;
    this.kept.set(key, k);
    if (!k.timer) {
      k.timer = setTimeout(() => void this.giveBack(key).catch(() => undefined), this.keepMs);
      k.timer.unref();
    }
  }

  /** Puts the tokens kept for `key` back into its shared bucket (never above one second of the rate). */
  private async giveBack(key: string): Promise<void> {
    const k = this.kept.get(key);
    if (!k) return;
    this.kept.delete(key);
    if (k.timer) clearTimeout(k.timer);
    const n = Math.floor(k.tokens);
    if (n <= 0) return;
    await this.pool.query(`UPDATE streams.tps_bucket SET tokens = least(rate::float8, tokens + $2) WHERE key = $1`, [key, n]);
  }

  /**
   * Refills the key's bucket for the time since its last grant (at most one second of the rate) and takes up to `want`
   * tokens from it, in one statement holding the row's lock; returns how many it took.
   */
  private async grant(key: string, rate: number, nowMs: number, want: number): Promise<number> {
    const refilled = `least($2::float8, tokens + greatest(0, $3::bigint - at_ms) / 1000.0 * $2::float8)`;
    const { rows } = await this.pool.query<{ granted: number }>(
      `WITH fresh AS (
         INSERT INTO streams.tps_bucket (key, rate, tokens, at_ms) VALUES ($1::text, $2::float8, $2::float8, $3::bigint) ON CONFLICT (key) DO NOTHING RETURNING key
       )
       UPDATE streams.tps_bucket SET
         granted = least($4::float8, floor(${refilled}))::int,
         tokens = ${refilled} - least($4::float8, floor(${refilled})),
         rate = $2::float8,
         at_ms = greatest(at_ms, $3::bigint)
       WHERE key = $1::text AND NOT EXISTS (SELECT 1 FROM fresh)
       RETURNING granted`,
      [key, rate, nowMs, want],
    );
    if (rows.length) return rows[0].granted;
    // the row was created by this statement, full: take from it now
    return this.grant(key, rate, nowMs, want);
  }
}
