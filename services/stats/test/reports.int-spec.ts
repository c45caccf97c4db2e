import { Permission, type DashboardMainDto, type TopDestinationsDto } from '@switchboard/contracts';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { rebuildRollups, STATS_CONNECTION } from '../src';
import { accepted, customer, message, refunded, startStats, statusChanged, stream, type Msg, type StatsTestApp } from './support';

const P = Permission;
const main = (s: StatsTestApp, token: string, body: Record<string, unknown>) => s.call<DashboardMainDto>('POST', '/dashboard_statistics/main', { token, body });
const top = (s: StatsTestApp, token: string, body: Record<string, unknown>) => s.call<TopDestinationsDto>('POST', '/dashboard_statistics/top_destinations', { token, body });

describe('stats: dashboard_statistics reports', () => {
  let s: StatsTestApp;
  const send = async (msgs: Msg[], finals: Record<string, 'delivered' | 'undelivered' | 'no_routes'> = {}) => {
    await s.publish(msgs.map((m) => accepted(m)));
    await s.publish(msgs.filter((m) => finals[m.uuid]).map((m) => statusChanged(m, finals[m.uuid])));
  };

  beforeAll(async () => {
    s = await startStats({ cacheMs: 0 });
  });
  afterAll(async () => s?.close());

  describe('a -03:00 account across its DST changes (America/Sao_Paulo, 2018-19)', () => {
    const acc = '301';
    beforeAll(async () => {
      await s.publish([customer(acc, 'America/Sao_Paulo', 'BRL')]);
      await send([
        message({ account: acc, acceptedAt: '2018-11-04T02:30:00Z' }), // Nov 3, 23:30 -03
        message({ account: acc, acceptedAt: '2018-11-04T03:30:00Z' }), // Nov 4, 01:30 -02 (00:00-00:59 never happened)
        message({ account: acc, acceptedAt: '2018-11-05T01:59:00Z' }), // Nov 4, 23:59 -02
        message({ account: acc, acceptedAt: '2018-11-05T02:00:00Z' }), // Nov 5, 00:00 -02
        message({ account: acc, acceptedAt: '2019-02-17T01:30:00Z' }), // Feb 16, 23:30 -02 (the first one)
        message({ account: acc, acceptedAt: '2019-02-17T02:30:00Z' }), // Feb 16, 23:30 -03 (the repeated hour)
      ]);
    });

    it('counts a date-only range from its local 00:00:00 to 23:59:59: a 23-hour day', async () => {
      const r = await main(s, s.token(acc), { type: 'custom', start: '2018-11-04', end: '2018-11-04' });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ start: '2018-11-04T03:00:00.000Z', end: '2018-11-05T01:59:59.000Z', timeZone: 'America/Sao_Paulo', grain: 'hour' });
      expect(r.body.totals.total).toBe(2);
      expect(r.body.series.map((p) => [p.bucket, p.total])).toEqual([
        ['2018-11-04T03:00:00Z', 1],
        ['2018-11-05T01:00:00Z', 1],
      ]);
    });

    it('keeps the repeated hour of the fall-back as two buckets of one 25-hour day', async () => {
      const r = await main(s, s.token(acc), { type: 'custom', start: '2019-02-16', end: '2019-02-16' });
      expect(r.body).toMatchObject({ start: '2019-02-16T02:00:00.000Z', end: '2019-02-17T02:59:59.000Z' });
      expect(r.body.series.map((p) => [p.bucket, p.total])).toEqual([
        ['2019-02-17T01:00:00Z', 1],
        ['2019-02-17T02:00:00Z', 1],
      ]);
      const days = await s.sql<{ bucket: string; n: string }>(`SELECT bucket::text, sum(messages)::text AS n FROM stats.rollup_counts_day_country WHERE account_id = $1 GROUP BY 1 ORDER BY 1`, [acc]);
      expect(days).toEqual([
        { bucket: '2018-11-03', n: '1' },
        { bucket: '2018-11-04', n: '2' },
        { bucket: '2018-11-05', n: '1' },
        { bucket: '2019-02-16', n: '2' },
      ]);
    });

    it('answers a month from the day rollups in days', async () => {
      const r = await main(s, s.token(acc), { type: 'month', date: '2018-11-20' });
      expect(r.body).toMatchObject({ slice: 'month', start: '2018-11-01T03:00:00.000Z', grain: 'day' });
      expect(r.body.series.map((p) => [p.bucket, p.total])).toEqual([
        ['2018-11-03', 1],
        ['2018-11-04', 2],
        ['2018-11-05', 1],
      ]);
    });
  });

  describe('a +05:30 account (Asia/Kolkata)', () => {
    const acc = '302';
    beforeAll(async () => {
      await s.publish([customer(acc, 'Asia/Kolkata', 'INR')]);
      await send([message({ account: acc, acceptedAt: '2026-03-10T18:29:00Z', iso2: 'IN' }), message({ account: acc, acceptedAt: '2026-03-10T18:30:00Z', iso2: 'IN' })]);
    });

    it('cuts days at local midnight (18:30 UTC) and hours at :30 UTC', async () => {
      const r = await main(s, s.token(acc), { type: 'custom', start: '2026-03-11', end: '2026-03-11' });
      expect(r.body).toMatchObject({ start: '2026-03-10T18:30:00.000Z', end: '2026-03-11T18:29:59.000Z' });
      expect(r.body.totals.total).toBe(1);
      expect(r.body.series.map((p) => p.bucket)).toEqual(['2026-03-10T18:30:00Z']);
      const before = await main(s, s.token(acc), { type: 'day', date: '2026-03-10' });
      expect(before.body.series.map((p) => p.bucket)).toEqual(['2026-03-10T17:30:00Z']);
    });
  });

  describe('figures, costs and filters', () => {
    const acc = '303';
    let msgs: Msg[];
    beforeAll(async () => {
      await s.publish([customer(acc, 'Europe/Berlin', 'EUR'), stream(acc, '31', 'Orders'), stream(acc, '32', 'Alerts')]);
      const at = '2026-06-15T10:00:00Z';
      msgs = [
        // 0.1 + 0.2 is 0.3 here, and 1 micro-unit is not lost beside 999 999.999999
        message({ account: acc, acceptedAt: at, stream: '31', iso2: 'GB', priceMicros: 100_000 }),
        message({ account: acc, acceptedAt: at, stream: '31', iso2: 'GB', priceMicros: 200_000, segments: 2 }),
        message({ account: acc, acceptedAt: at, stream: '32', iso2: 'DE', priceMicros: 999_999_999_999 }),
        message({ account: acc, acceptedAt: at, stream: '32', iso2: 'DE', priceMicros: 1 }),
        message({ account: acc, acceptedAt: at, stream: '32', iso2: 'FR', priceMicros: 70_000 }),
        // charged in another currency (the account's changed): its own entry, never added to euros
        message({ account: acc, acceptedAt: at, stream: '31', iso2: 'GB', priceMicros: 5_000_000, currency: 'USD' }),
      ];
      await send(msgs, { [msgs[0].uuid]: 'delivered', [msgs[1].uuid]: 'delivered', [msgs[2].uuid]: 'undelivered', [msgs[4].uuid]: 'no_routes' });
      await s.publish([refunded(msgs[4], 70_000)]);
    });

    it('sums costs exactly per currency, less refunds, in micro-units and as amounts', async () => {
      const r = await main(s, s.token(acc), { type: 'custom', start: '2026-06-15', end: '2026-06-15' });
      expect(r.status).toBe(200);
      expect(r.body.totals).toMatchObject({ total: 6, delivered: 2, undelivered: 1, no_routes: 1, accepted: 2, failed: 2, pending: 2, parts: 7 });
      expect(r.body.cost).toEqual([
        { currency: 'EUR', micros: '1000000300000', amount: '1000000.30' },
        { currency: 'USD', micros: '5000000', amount: '5.00' },
      ]);
      expect(r.body.currency).toBe('EUR');
      expect(r.body.streams?.map((x) => [x.name, x.total, x.delivered, x.cost])).toEqual([
        ['Orders', 3, 2, [{ currency: 'EUR', micros: '300000', amount: '0.30' }, { currency: 'USD', micros: '5000000', amount: '5.00' }]],
        ['Alerts', 3, 0, [{ currency: 'EUR', micros: '1000000000000', amount: '1000000.00' }]],
      ]);
    });

    it('filters by stream and by slice; the default is one day back to now', async () => {
      const r = await main(s, s.token(acc), { type: 'custom', start: '2026-06-15', end: '2026-06-15', streams: [32] });
      expect(r.body.totals.total).toBe(3);
      expect((await main(s, s.token(acc), { type: 'custom', start: '2026-06-16', end: '2026-06-30' })).body.totals.total).toBe(0);
      expect((await main(s, s.token(acc), { type: 'year', date: '2026-01-01' })).body.totals.total).toBe(6);
      expect((await main(s, s.token(acc), { type: 'week', date: '2026-06-14' })).body.totals.total).toBe(0); // the week before (Sunday)
      expect((await main(s, s.token(acc), { type: 2, date: '2026-06-15' })).body.totals.total).toBe(6);
      const d = await main(s, s.token(acc), {});
      expect(d.body.slice).toBe('default');
      expect(Date.parse(d.body.end as string) - Date.parse(d.body.start as string)).toBeGreaterThanOrEqual(86_399_000);
      expect(d.body.totals.total).toBe(0);
    });

    it('ranks the top destinations by messages', async () => {
      const r = await top(s, s.token(acc), { type: 'all' });
      expect(r.status).toBe(200);
      expect(r.body.items.map((i) => [i.country, i.total, i.delivered, i.failed])).toEqual([
        ['GB', 3, 2, 0],
        ['DE', 2, 0, 1],
        ['FR', 1, 0, 1],
      ]);
      expect((await top(s, s.token(acc), { type: 'all', limit: 1, streams: '32' })).body.items.map((i) => i.country)).toEqual(['DE']);
    });

    it('refuses bad filters with the validation error and its field', async () => {
      for (const [body, field] of [
        [{ type: 'decade' }, 'type'],
        [{ type: 'custom', start: '2026-06-01' }, 'end'],
        [{ type: 'custom', start: '2026-06-10', end: '2026-06-01' }, 'start'],
        [{ type: 'custom', start: '2026-02-30', end: '2026-03-01' }, 'start'],
        [{ streams: ['abc'] }, 'streams'],
        [{ accountId: 'x' }, 'accountId'],
      ] as const) {
        const r = await main(s, s.token(acc), body);
        expect([r.status, r.body]).toEqual([400, expect.objectContaining({ violations: [expect.objectContaining({ propertyPath: field })] })]);
      }
      expect((await top(s, s.token(acc), { limit: 0 })).status).toBe(400);
    });
  });

  describe('isolation and permissions', () => {
    const [a, b] = ['304', '305'];
    beforeAll(async () => {
      await s.publish([customer(a, 'UTC', 'EUR'), customer(b, 'UTC', 'USD')]);
      await send([message({ account: a, acceptedAt: '2025-01-01T12:00:00Z' }), message({ account: b, acceptedAt: '2025-01-01T12:00:00Z', currency: 'USD' }), message({ account: b, acceptedAt: '2025-01-01T12:00:00Z', currency: 'USD' })]);
    });
    const range = { type: 'custom', start: '2025-01-01', end: '2025-01-01' };

    it("shows an account its own figures only, and refuses another account's to anyone but a super administrator", async () => {
      expect((await main(s, s.token(a), range)).body.totals.total).toBe(1);
      expect((await main(s, s.token(b), range)).body.totals.total).toBe(2);
      const other = await main(s, s.token(a), { ...range, accountId: b });
      expect([other.status, (other.body as unknown as { code: string }).code]).toEqual([403, 'ACCESS_DENIED']);
      expect((await top(s, s.token(a), { ...range, accountId: b })).status).toBe(403);
      const sa = s.token(a, [], true);
      expect((await main(s, sa, { ...range, accountId: b })).body).toMatchObject({ account: b, totals: { total: 2 } });
      const all = await main(s, sa, { ...range, accountId: 'all' });
      expect(all.body).toMatchObject({ account: 'all', currency: null, timeZone: 'UTC' });
      expect(all.body.totals.total).toBeGreaterThanOrEqual(3);
      expect(all.body.cost?.map((c) => c.currency)).toEqual(expect.arrayContaining(['EUR', 'USD']));
    });

    it.each([
      ['everything', [P.DashboardView, P.CostView, P.StreamView], 200, true, true],
      ['the dashboard without costs', [P.DashboardView, P.StreamView], 200, false, true],
      ['the dashboard without streams', [P.DashboardView, P.CostView], 200, true, false],
      ['no dashboard view', [P.CostView, P.StreamView, P.AnalyticsView], 403, false, false],
    ] as const)('with %s', async (_, perms, status, cost, streams) => {
      const r = await main(s, s.token(a, perms), range);
      expect(r.status).toBe(status);
      const t = await top(s, s.token(a, perms), range);
      expect(t.status).toBe(status);
      if (status !== 200) return;
      expect(r.body.cost !== null).toBe(cost);
      expect(r.body.series.every((p) => (p.costMicros !== null) === cost)).toBe(true);
      expect(r.body.streams !== null).toBe(streams);
      expect(t.body.items.every((i) => (i.cost !== null) === cost)).toBe(true);
    });

    it("ignores an event that names another account for a known message", async () => {
      const m = message({ account: a, acceptedAt: '2025-01-02T12:00:00Z' });
      await s.publish([accepted(m)]);
      await s.publish([statusChanged({ ...m, account: b }, 'delivered'), refunded({ ...m, account: b }, 50_000)]);
      const r = await main(s, s.token(a), { type: 'custom', start: '2025-01-02', end: '2025-01-02' });
      expect(r.body.totals).toMatchObject({ total: 1, accepted: 1, delivered: 0 });
      expect(r.body.cost).toEqual([{ currency: 'EUR', micros: '50000', amount: '0.05' }]);
      expect((await main(s, s.token(b), { type: 'custom', start: '2025-01-02', end: '2025-01-02' })).body.totals.total).toBe(0);
    });

    it('refuses a call without a token', async () => {
      expect((await s.call('POST', '/dashboard_statistics/main', { body: {} })).status).toBe(401);
    });
  });
});

describe('stats: rebuilding the rollups', () => {
  let s: StatsTestApp;
  beforeAll(async () => {
    s = await startStats({ cacheMs: 0 });
  });
  afterAll(async () => s?.close());

  it('recomputes every rollup from the message states, in the time zone the account has now', async () => {
    const acc = '501';
    await s.publish([customer(acc, 'UTC')]);
    const msgs = [message({ account: acc, acceptedAt: '2026-02-01T22:30:00Z', priceMicros: 7 }), message({ account: acc, acceptedAt: '2026-02-01T10:00:00Z', iso2: 'DE' })];
    await s.publish(msgs.map((m) => accepted(m)));
    await s.publish([statusChanged(msgs[0], 'delivered')]);
    const snapshot = async () => ({
      // the message rollups in the count shape (docs/decisions/0132): a row per key without the status, a count per status
      hour: await s.sql(`SELECT * FROM stats.rollup_counts_hour WHERE account_id = $1 AND (messages <> 0 OR cost_micros <> 0) ORDER BY bucket, iso2`, [acc]),
      day: await s.sql(
        `SELECT bucket::text, iso2, n_accepted AS accepted, n_delivered AS delivered, messages::int, cost_micros::text FROM stats.rollup_counts_day_country WHERE account_id = $1 AND (messages <> 0 OR cost_micros <> 0) ORDER BY bucket, iso2`,
        [acc],
      ),
      country: await s.sql(`SELECT bucket::text, iso2, n_accepted, n_delivered, messages::int FROM stats.rollup_counts_day_country WHERE account_id = $1 AND (messages <> 0 OR cost_micros <> 0) ORDER BY bucket, iso2`, [acc]),
      month: await s.sql(
        `SELECT bucket::text, iso2, stream_id::text, n_accepted, n_delivered, messages::int, cost_micros::text FROM stats.rollup_counts_month_country WHERE account_id = $1 AND (messages <> 0 OR cost_micros <> 0) ORDER BY bucket, iso2`,
        [acc],
      ),
    });
    // (rows a message left when it moved on stay at zero in the live rollups; the rebuild has none)
    const before = await snapshot();
    // rollups lost or damaged: the rebuild puts back exactly what the events made
    await s.sql(`DELETE FROM stats.rollup_counts_day_country WHERE account_id = $1`, [acc]);
    await s.sql(`DELETE FROM stats.rollup_counts_month_country WHERE account_id = $1`, [acc]);
    await s.sql(`UPDATE stats.rollup_counts_hour SET messages = messages + 5, n_sent = n_sent + 5 WHERE account_id = $1`, [acc]);
    const ds = s.t.app.get<DataSource>(getDataSourceToken(STATS_CONNECTION));
    await rebuildRollups(ds);
    expect(await snapshot()).toEqual(before);
    // the account moves to Kolkata (+05:30): 22:30 UTC is 04:00 the next local day, 10:00 UTC in the 15:00 hour (09:30 UTC)
    await s.publish([customer(acc, 'Asia/Kolkata')]);
    await rebuildRollups(ds);
    const after = await snapshot();
    expect(after.day).toEqual([
      { bucket: '2026-02-01', iso2: 'DE', accepted: '1', delivered: '0', messages: 1, cost_micros: '50000' },
      { bucket: '2026-02-02', iso2: 'GB', accepted: '0', delivered: '1', messages: 1, cost_micros: '7' },
    ]);
    expect(after.hour.map((r) => (r.bucket as Date).toISOString())).toEqual(['2026-02-01T09:30:00.000Z', '2026-02-01T22:30:00.000Z']);
  });

  it('writes the rebuilt rollups in account and time order, so a day of hour rows lies on a few pages (the cold dashboard reads them)', async () => {
    // two days of hours, two streams and four countries, published in a shuffled order: the message states are not in
    // time order, and a rebuild that wrote its groups in a hash's order scattered a day's hour rows over a page each
    const acc = '503';
    await s.publish([customer(acc, 'UTC')]);
    const msgs: Msg[] = [];
    for (let h = 0; h < 48; h++) {
      for (const iso2 of ['GB', 'DE', 'FR', 'ES']) {
        for (const st of ['1', '2']) msgs.push(message({ account: acc, acceptedAt: new Date(Date.UTC(2026, 2, 1, h)).toISOString(), iso2, stream: st }));
      }
    }
    const shuffled = msgs.map((m, i) => ({ m, k: (i * 7919) % msgs.length })).sort((x, y) => x.k - y.k).map((x) => x.m);
    await s.publish(shuffled.map((m) => accepted(m)));
    await rebuildRollups(s.t.app.get<DataSource>(getDataSourceToken(STATS_CONNECTION)));
    // the rows as stored (heap order): each table's (account, bucket) never goes back
    for (const table of ['rollup_counts_hour', 'rollup_counts_day_country', 'rollup_counts_month_country']) {
      const [r] = await s.sql(
        `SELECT count(*) FILTER (WHERE (pa, pb) > (account_id, bucket))::int AS back, count(*)::int AS n
           FROM (SELECT account_id, bucket, lag(account_id) OVER w AS pa, lag(bucket) OVER w AS pb FROM stats.${table} WINDOW w AS (ORDER BY ctid)) x`,
      );
      expect({ table, back: r.back }).toEqual({ table, back: 0 });
      expect(r.n).toBeGreaterThan(0);
    }
    const [hour] = await s.sql(`SELECT count(*)::int AS n FROM stats.rollup_counts_hour WHERE account_id = $1`, [acc]);
    expect(hour.n).toBe(48 * 4 * 2);
  });
});

describe('stats: the two-minute cache', () => {
  let s: StatsTestApp;
  beforeAll(async () => {
    s = await startStats();
  });
  afterAll(async () => s?.close());

  it('answers the same query from the cache, and a different one afresh', async () => {
    const acc = '401';
    await s.publish([customer(acc, 'UTC'), accepted(message({ account: acc, acceptedAt: '2025-05-05T05:00:00Z' }))]);
    const body = { type: 'all' };
    const first = await main(s, s.token(acc), body);
    expect(first.body).toMatchObject({ cached: false, totals: { total: 1 } });
    await s.publish([accepted(message({ account: acc, acceptedAt: '2025-05-05T06:00:00Z' }))]);
    expect((await main(s, s.token(acc), body)).body).toMatchObject({ cached: true, totals: { total: 1 } });
    expect((await main(s, s.token(acc), { type: 'custom', start: '2025-05-05', end: '2025-05-05' })).body).toMatchObject({ cached: false, totals: { total: 2 } });
    // another account's same query is its own
    expect((await main(s, s.token('402'), body)).body).toMatchObject({ cached: false, totals: { total: 0 } });
  });
});
