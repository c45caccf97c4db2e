import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { STATS_CONNECTION } from '../src';
import { RollupStreamUnkept1796500000011 } from '../src/migrations/1796500000011-rollup-stream-unkept';
import { accepted, customer, message, rng, startStats, statusChanged, type StatsTestApp } from './support';

/**
 * Migration 1796500000011 (docs/decisions/0175): the per-stream count rollups are no longer written; its down puts them
 * back as the country rollups summed over iso2, for a release that reads them again.
 */
describe('stats: the per-stream rollups unkept (1796500000011)', () => {
  let s: StatsTestApp;
  beforeAll(async () => {
    s = await startStats({ cacheMs: 0 });
  });
  afterAll(async () => s?.close());

  it('goes down to per-stream rows equal to the country rows summed, and up again', async () => {
    const acc = '711';
    await s.publish([customer(acc, 'Asia/Kolkata')]);
    const r = rng(71);
    const msgs = Array.from({ length: 120 }, () =>
      message({
        account: acc,
        acceptedAt: new Date(Date.parse('2026-03-01T00:00:00Z') + Math.floor(r() * 70 * 86_400_000)).toISOString(),
        stream: String(1 + Math.floor(r() * 3)),
        iso2: ['GB', 'IN', 'DE'][Math.floor(r() * 3)],
        priceMicros: Math.floor(r() * 100_000),
      }),
    );
    await s.publish([...msgs.map((m) => accepted(m)), ...msgs.filter(() => r() < 0.6).map((m) => statusChanged(m, 'delivered'))]);
    const cols = 'messages, parts, cost_micros, n_accepted, n_sent, n_delivered, n_sent_failed, n_undelivered, n_no_routes, n_rejected';
    const summed = (from: string) =>
      s.sql(`SELECT account_id::text, bucket::text, stream_id::text, currency, ${cols.split(', ').map((c) => `sum(${c})::text AS ${c}`).join(', ')} FROM stats.${from} GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`);
    const rows = (table: string) => s.sql(`SELECT account_id::text, bucket::text, stream_id::text, currency, ${cols.split(', ').map((c) => `${c}::text`).join(', ')} FROM stats.${table} ORDER BY 1, 2, 3, 4`);
    expect(await rows('rollup_counts_day_stream')).toEqual([]);

    const ds = s.t.app.get<DataSource>(getDataSourceToken(STATS_CONNECTION));
    const q = ds.createQueryRunner();
    try {
      // as the migrations run: each in a transaction
      await q.startTransaction();
      await new RollupStreamUnkept1796500000011().down(q);
      await q.commitTransaction();
      const days = await summed('rollup_counts_day_country');
      expect(days.length).toBeGreaterThan(20);
      expect(await rows('rollup_counts_day_stream')).toEqual(days);
      expect(await rows('rollup_counts_month_stream')).toEqual(await summed('rollup_counts_month_country'));
      await q.startTransaction();
      await new RollupStreamUnkept1796500000011().up(q);
      await q.commitTransaction();
      const [c] = await s.sql<{ c: string }>(`SELECT obj_description('stats.rollup_counts_day_stream'::regclass, 'pg_class') AS c`);
      expect(c.c).toContain('0175');
    } finally {
      await q.release();
    }
  });
});
