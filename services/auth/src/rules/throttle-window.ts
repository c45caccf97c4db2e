export interface ThrottleRule {
  /** Failures allowed within the window; once reached, attempts are refused. */
  limit: number;
  windowSeconds: number;
}

/** The earliest moment failures are still counted at `now`. */
export function windowStart(now: Date, rule: ThrottleRule): Date {
  return new Date(now.getTime() - rule.windowSeconds * 1000);
}

/**
 * Sliding window: with `limit` or more failures in the last `windowSeconds`, attempts are refused until enough of
 * them leave the window, i.e. until the `limit`-th most recent failure is older than the window.
 * `recentFailures` are failure times (any order; the repository sends at most the `limit` most recent).
 * Returns the seconds to wait, or 0 when an attempt is allowed now.
 */
export function throttleWait(recentFailures: readonly Date[], now: Date, rule: ThrottleRule): number {
  const start = windowStart(now, rule).getTime();
  const inWindow = recentFailures
    .map((d) => d.getTime())
    .filter((t) => t > start && t <= now.getTime())
    .sort((a, b) => b - a);
  if (inWindow.length < rule.limit) return 0;
  const limitth = inWindow[rule.limit - 1];
  const ms = limitth + rule.windowSeconds * 1000 - now.getTime();
  return ms > 0 ? Math.ceil(ms / 1000) : 0;
}

/** `::ffff:10.0.0.1` and `10.0.0.1` are one client. */
export function normalizeIp(ip: string | null | undefined): string | null {
  if (!ip) return null;
  const v4mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return (v4mapped ? v4mapped[1] : ip).toLowerCase();
}
