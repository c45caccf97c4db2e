import { Inject, Injectable } from '@nestjs/common';
import { STATS_OPTIONS, type ResolvedStatsOptions } from '../stats.options';

const MAX_ENTRIES = 10_000;

/**
 * Spec 9: report answers kept two minutes per account and query (`cached: true` in the answer), so a dashboard
 * reloaded under heavy traffic costs nothing; dropped early when the account's currency or time zone changes.
 */
@Injectable()
export class ReportCache {
  private readonly entries = new Map<string, { at: number; account: string; value: unknown }>();

  constructor(@Inject(STATS_OPTIONS) private readonly options: ResolvedStatsOptions) {}

  async get<T>(account: string, key: string, compute: () => Promise<T>): Promise<{ value: T; cached: boolean }> {
    const k = `${account}\u0000${key}`;
    const hit = this.entries.get(k);
    if (hit && Date.now() - hit.at < this.options.cacheMs) return { value: hit.value as T, cached: true };
    const value = await compute();
    if (this.options.cacheMs > 0) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(k, { at: Date.now(), account, value });
    }
    return { value, cached: false };
  }

  invalidate(account: string): void {
    for (const [k, e] of this.entries) if (e.account === account || e.account === '*') this.entries.delete(k);
  }
}
