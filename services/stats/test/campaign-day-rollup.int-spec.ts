import type { CampaignDeliveryStatsDto, CampaignStatsDashboardDto, CampaignStatsRowDto, CampaignVariantStatsDto } from '@switchboard/contracts';
import { randomRanges, rng, seedZones, startStats, ZONES, type StatsTestApp } from './support';

/**
 * The campaign reports read whole local months from the campaign month rollup, the whole local days left from the
 * campaign day rollups and only the partial first and last day from the hour rollups (docs/decisions/0060, 0077). Their
 * answers must be the hour rollups' answers: compared here with the hour rollups summed by SQL over the same instants,
 * for fixed and random ranges across both DST changes of a year, whole months and partial days, in a DST zone, a
 * +05:30 and a -03:00 zone.
 */
interface Figures {
  total: number;
  delivered: number;
  failed: number;
  pending: number;
  cost: string;
  clicks: number;
  uniqueClicks: number;
  optedOut: number;
}

describe('stats: campaign reports from the campaign day and month rollups', () => {
  let s: StatsTestApp;
  beforeAll(async () => {
    s = await startStats({ cacheMs: 0 });
    await seedZones(s, 60);
  });
  afterAll(async () => s?.close());

  /** The hour rollups' answer over [start, end): per campaign, and per local day of the zone (the series). */
  async function fromHours(account: string, start: string | null, end: string | null, campaign: string | null, grain: 'hour' | 'day' | 'month' = 'day') {
    const args = [account, start, end, campaign, ZONES[account]];
    const cond = `account_id = $1 AND campaign_id <> 0 AND ($2::timestamptz IS NULL OR bucket >= $2::timestamptz) AND ($3::timestamptz IS NULL OR bucket < $3::timestamptz)
                  AND ($4::bigint IS NULL OR campaign_id = $4::bigint) AND $5::text IS NOT NULL`;
    // the series point of an hour row: its instant, its local date or its local month
    const point =
      grain === 'hour'
        ? `to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`
        : `to_char(bucket AT TIME ZONE $5, '${grain === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM'}')`;
    const msgs = await s.sql<{ c: string; d: string; v: string; i: string; status: string; n: string; cost: string }>(
      `SELECT campaign_id::text AS c, ${point} AS d, variant_id::text AS v, iso2 AS i, status, sum(messages)::text AS n, sum(cost_micros)::text AS cost
         FROM stats.rollup_campaign_hour WHERE ${cond} GROUP BY 1, 2, 3, 4, 5`,
      args,
    );
    const clicks = await s.sql<{ c: string; d: string; clicks: string; uniq: string; opted: string }>(
      `SELECT campaign_id::text AS c, ${point} AS d, sum(clicks)::text AS clicks, sum(unique_clicks)::text AS uniq, sum(opted_out)::text AS opted
         FROM stats.campaign_click_hour WHERE ${cond} GROUP BY 1, 2`,
      args,
    );
    const perCountry = new Map<string, number>();
    const perVariant = new Map<string, number>();
    for (const m of msgs) {
      perCountry.set(m.i, (perCountry.get(m.i) ?? 0) + Number(m.n));
      perVariant.set(m.v, (perVariant.get(m.v) ?? 0) + Number(m.n));
    }
    const zero = (): Figures => ({ total: 0, delivered: 0, failed: 0, pending: 0, cost: '0', clicks: 0, uniqueClicks: 0, optedOut: 0 });
    const perCampaign = new Map<string, Figures>();
    const perDay = new Map<string, { total: number; delivered: number; clicks: number }>();
    const all = zero();
    for (const m of msgs) {
      const n = Number(m.n);
      for (const f of [perCampaign.get(m.c) ?? zero(), all]) {
        f.total += n;
        if (m.status === 'delivered') f.delivered += n;
        if (['undelivered', 'no_routes', 'sent_failed', 'rejected'].includes(m.status)) f.failed += n;
        if (['accepted', 'sent'].includes(m.status)) f.pending += n;
        f.cost = (BigInt(f.cost) + BigInt(m.cost)).toString();
        if (f !== all) perCampaign.set(m.c, f);
      }
      const d = perDay.get(m.d) ?? { total: 0, delivered: 0, clicks: 0 };
      perDay.set(m.d, { ...d, total: d.total + n, delivered: d.delivered + (m.status === 'delivered' ? n : 0) });
    }
    for (const k of clicks) {
      for (const f of [perCampaign.get(k.c) ?? zero(), all]) {
        f.clicks += Number(k.clicks);
        f.uniqueClicks += Number(k.uniq);
        f.optedOut += Number(k.opted);
        if (f !== all) perCampaign.set(k.c, f);
      }
      const d = perDay.get(k.d) ?? { total: 0, delivered: 0, clicks: 0 };
      perDay.set(k.d, { ...d, clicks: d.clicks + Number(k.clicks) });
    }
    const series = [...perDay.entries()].filter(([, p]) => p.total !== 0 || p.clicks !== 0).sort(([a], [b]) => a.localeCompare(b));
    const nonzero = (m: Map<string, number>) => new Map([...m].filter(([, n]) => n !== 0));
    return { perCampaign, all, series: series.map(([d, p]) => [d, p.total, p.delivered, p.clicks]), perCountry: nonzero(perCountry), perVariant: nonzero(perVariant) };
  }

  const pick = (f: Partial<Record<keyof Figures, unknown>> & { cost?: unknown }): Figures => ({
    total: Number(f.total),
    delivered: Number(f.delivered),
    failed: Number(f.failed),
    pending: Number(f.pending),
    cost: ((f.cost as Array<{ micros: string }> | null) ?? []).reduce((n, c) => n + BigInt(c.micros), 0n).toString(),
    clicks: Number(f.clicks),
    uniqueClicks: Number(f.uniqueClicks),
    optedOut: Number(f.optedOut),
  });

  // custom ranges: partial first and last days across the spring and the autumn change, whole local days across
  // them, a range starting on a local midnight, one inside the repeated hour's day, and long ones (daily series)
  const ranges: Array<[string, string]> = [
    ['2026-03-27T13:17:00Z', '2026-03-31T08:59:59Z'],
    ['2026-03-28', '2026-03-30'],
    ['2026-10-24T22:30:00Z', '2026-10-28T00:20:00Z'],
    ['2026-10-25', '2026-10-25'],
    ['2026-10-24T10:00:00Z', '2026-10-26T15:00:00Z'],
    ['2026-03-20T10:45:00Z', '2026-11-01T10:00:00Z'],
    ['2026-03-29T00:00:00+01:00', '2026-06-11T05:30:00Z'],
    ['2026-06-10T12:00:00Z', '2026-10-27'],
  ];

  it.each(Object.entries(ZONES))('answers the campaign list, CTR, dashboard and a campaign report as the hour rollups do (account %s, %s)', async (account) => {
    const token = s.token(account);
    for (const [start, end] of ranges) {
      const q = `type=custom&start=${encodeURIComponent(start)}&end=${encodeURIComponent(end)}`;
      const dash = await s.call<CampaignStatsDashboardDto>('GET', `/campaign_stats/dashboard?${q}`, { token });
      expect(dash.status).toBe(200);
      // the range's instants as the service resolved them (end: the inclusive last second)
      const from = dash.body.start as string;
      const to = new Date(Date.parse(dash.body.end as string) + 1000).toISOString();
      const want = await fromHours(account, from, to, null);
      expect([start, end, pick(dash.body.totals)]).toEqual([start, end, want.all]);
      expect(want.all.total).toBeGreaterThan(0);
      if (dash.body.grain === 'day') expect([start, end, dash.body.series.map((p) => [p.bucket, p.total, p.delivered, p.clicks])]).toEqual([start, end, want.series]);

      const list = await s.call<{ items: CampaignStatsRowDto[]; total: number }>('GET', `/campaign_stats?${q}`, { token });
      expect(new Map(list.body.items.map((c) => [String(c.campaignId), pick(c)]))).toEqual(want.perCampaign);
      // first and last hour with messages, from the hour rollup
      const spans = await s.sql<{ c: string; lo: Date; hi: Date }>(
        `SELECT campaign_id::text AS c, min(bucket) AS lo, max(bucket) AS hi FROM stats.rollup_campaign_hour WHERE account_id = $1 AND bucket >= $2 AND bucket < $3 GROUP BY 1`,
        [account, from, to],
      );
      expect(new Map(list.body.items.map((c) => [String(c.campaignId), [c.firstAt, c.lastAt]]))).toEqual(new Map(spans.map((x) => [x.c, [x.lo.toISOString(), x.hi.toISOString()]])));
      const ctr = await s.call<{ items: Array<{ campaignId: number; delivered: number; uniqueClicks: number }> }>('GET', `/campaign_stats/ctr?${q}`, { token });
      expect(new Map(ctr.body.items.map((c) => [String(c.campaignId), [c.delivered, c.uniqueClicks]]))).toEqual(new Map([...want.perCampaign].map(([c, f]) => [c, [f.delivered, f.uniqueClicks]])));

      const campaign = `${account}2`;
      const one = await s.call<CampaignDeliveryStatsDto>('GET', `/campaign_reports/delivery_stats/${campaign}?${q}`, { token });
      const wantOne = await fromHours(account, from, to, campaign);
      expect([start, end, pick(one.body.totals)]).toEqual([start, end, wantOne.perCampaign.get(campaign)]);
      if (one.body.grain === 'day') expect(one.body.series.map((p) => [p.bucket, p.total, p.delivered, p.clicks])).toEqual(wantOne.series);
    }
    // all time: the day rollups only
    const all = await s.call<CampaignStatsDashboardDto>('GET', '/campaign_stats/dashboard?type=all', { token });
    const want = await fromHours(account, null, null, null);
    expect(pick(all.body.totals)).toEqual(want.all);
    expect(all.body.series.map((p) => [p.bucket, p.total, p.delivered, p.clicks])).toEqual(want.series);
    // a week slice around the spring change
    const week = await s.call<CampaignStatsDashboardDto>('GET', '/campaign_stats/dashboard?type=week&date=2026-03-29', { token });
    const wantWeek = await fromHours(account, week.body.start, new Date(Date.parse(week.body.end as string) + 1000).toISOString(), null);
    expect(pick(week.body.totals)).toEqual(wantWeek.all);
    expect(week.body.series.map((p) => [p.bucket, p.total, p.delivered, p.clicks])).toEqual(wantWeek.series);
  });

  /** The campaigns dashboard, list and CTR, and one campaign's delivery and variant reports, against the hour rollups. */
  async function check(account: string, q: string): Promise<number> {
    const token = s.token(account);
    const dash = await s.call<CampaignStatsDashboardDto>('GET', `/campaign_stats/dashboard?${q}`, { token });
    expect([q, dash.status]).toEqual([q, 200]);
    const from = dash.body.start;
    const to = dash.body.end === null ? null : new Date(Date.parse(dash.body.end) + 1000).toISOString();
    const want = await fromHours(account, from, to, null, dash.body.grain);
    expect([q, pick(dash.body.totals)]).toEqual([q, want.all]);
    expect([q, dash.body.grain, dash.body.series.map((p) => [p.bucket, p.total, p.delivered, p.clicks])]).toEqual([q, dash.body.grain, want.series]);
    const list = await s.call<{ items: CampaignStatsRowDto[] }>('GET', `/campaign_stats?${q}`, { token });
    expect([q, new Map(list.body.items.map((c) => [String(c.campaignId), pick(c)]))]).toEqual([q, want.perCampaign]);
    const ctr = await s.call<{ items: Array<{ campaignId: number; delivered: number; uniqueClicks: number }> }>('GET', `/campaign_stats/ctr?${q}`, { token });
    expect([q, new Map(ctr.body.items.map((c) => [String(c.campaignId), [c.delivered, c.uniqueClicks]]))]).toEqual([q, new Map([...want.perCampaign].map(([c, f]) => [c, [f.delivered, f.uniqueClicks]]))]);
    const campaign = `${account}3`;
    const one = await s.call<CampaignDeliveryStatsDto>('GET', `/campaign_reports/delivery_stats/${campaign}?${q}`, { token });
    const wantOne = await fromHours(account, from, to, campaign, one.body.grain);
    expect([q, pick(one.body.totals)]).toEqual([q, wantOne.perCampaign.get(campaign) ?? pick({ cost: [], clicks: 0, uniqueClicks: 0, optedOut: 0, total: 0, delivered: 0, failed: 0, pending: 0 })]);
    expect([q, one.body.grain, one.body.series.map((p) => [p.bucket, p.total, p.delivered, p.clicks])]).toEqual([q, one.body.grain, wantOne.series]);
    expect([q, new Map(one.body.countries.map((c) => [c.country, c.total]))]).toEqual([q, wantOne.perCountry]);
    const variants = await s.call<CampaignVariantStatsDto>('GET', `/campaign_reports/variant_stats/${campaign}?${q}`, { token });
    expect([q, new Map(variants.body.items.filter((v) => v.total > 0).map((v) => [String(v.variantId ?? 0), v.total]))]).toEqual([q, wantOne.perVariant]);
    return want.all.total;
  }

  it.each(Object.entries(ZONES))('answers as the hour rollups do for random ranges, whole months and the year (account %s, %s)', async (account) => {
    const r = rng(Number(account) + 7);
    let counted = 0;
    for (const { start, end } of randomRanges(r)) counted += await check(account, `type=custom&start=${encodeURIComponent(start)}&end=${encodeURIComponent(end)}`);
    expect(counted).toBeGreaterThan(0);
    // whole months across both DST changes; whole months with whole and partial days at both ends; over 400 days (a
    // monthly series); the year and a month holding the autumn change
    expect(await check(account, 'type=custom&start=2026-03-01&end=2026-10-31')).toBeGreaterThan(0);
    expect(await check(account, `type=custom&start=${encodeURIComponent('2026-03-27T05:00:00Z')}&end=${encodeURIComponent('2026-10-24T12:00:00Z')}`)).toBeGreaterThan(0);
    expect(await check(account, `type=custom&start=${encodeURIComponent('2026-02-15T10:00:00Z')}&end=2027-04-01`)).toBeGreaterThan(0);
    expect(await check(account, 'type=year&date=2026-06-01')).toBeGreaterThan(0);
    expect(await check(account, 'type=month&date=2026-10-15')).toBeGreaterThan(0);
    // a few hundred calls: generous for a loaded runner
  }, 240_000);

  it('keeps the campaign day-total and month rollups equal to the hour rollups summed per local date and month', async () => {
    for (const [table, unit] of [
      ['rollup_campaign_day_total', 'day'],
      ['rollup_campaign_month', 'month'],
    ] as const) {
      const fromHourRows = await s.sql(
        `SELECT h.account_id, h.campaign_id, date_trunc('${unit}', h.bucket AT TIME ZONE a.time_zone)::date::text AS d, h.status, h.currency, sum(h.messages)::text AS m, sum(h.parts)::text AS p, sum(h.cost_micros)::text AS c
           FROM stats.rollup_campaign_hour h JOIN stats.account a USING (account_id) GROUP BY 1, 2, 3, 4, 5 HAVING sum(h.messages) <> 0 OR sum(h.cost_micros) <> 0 ORDER BY 1, 2, 3, 4, 5`,
      );
      const rows = await s.sql(
        `SELECT account_id, campaign_id, bucket::text AS d, status, currency, messages::text AS m, parts::text AS p, cost_micros::text AS c
           FROM stats.${table} WHERE messages <> 0 OR cost_micros <> 0 ORDER BY 1, 2, 3, 4, 5`,
      );
      expect([table, rows]).toEqual([table, fromHourRows]);
      expect(rows.length).toBeGreaterThan(unit === 'day' ? 50 : 20);
    }
  });

  it('keeps the day rollups equal to the hour rollups summed per local date', async () => {
    const msgs = await s.sql(
      `SELECT h.account_id, h.campaign_id, (h.bucket AT TIME ZONE a.time_zone)::date::text AS d, h.variant_id, h.iso2, h.status, h.currency, sum(h.messages)::text AS m, sum(h.parts)::text AS p, sum(h.cost_micros)::text AS c
         FROM stats.rollup_campaign_hour h JOIN stats.account a USING (account_id) GROUP BY 1, 2, 3, 4, 5, 6, 7 HAVING sum(h.messages) <> 0 OR sum(h.cost_micros) <> 0 ORDER BY 1, 2, 3, 4, 5, 6, 7`,
    );
    const days = await s.sql(
      `SELECT account_id, campaign_id, bucket::text AS d, variant_id, iso2, status, currency, messages::text AS m, parts::text AS p, cost_micros::text AS c
         FROM stats.rollup_campaign_day WHERE messages <> 0 OR cost_micros <> 0 ORDER BY 1, 2, 3, 4, 5, 6, 7`,
    );
    expect(days).toEqual(msgs);
    expect(days.length).toBeGreaterThan(50);
    const clicks = await s.sql(
      `SELECT h.account_id, h.campaign_id, (h.bucket AT TIME ZONE a.time_zone)::date::text AS d, h.variant_id, h.domain_id, sum(h.clicks)::text AS k, sum(h.unique_clicks)::text AS u
         FROM stats.campaign_click_hour h JOIN stats.account a USING (account_id) GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`,
    );
    const clickDays = await s.sql(`SELECT account_id, campaign_id, bucket::text AS d, variant_id, domain_id, clicks::text AS k, unique_clicks::text AS u FROM stats.campaign_click_day ORDER BY 1, 2, 3, 4, 5`);
    expect(clickDays).toEqual(clicks);
    expect(clickDays.length).toBeGreaterThan(20);
  });
});
