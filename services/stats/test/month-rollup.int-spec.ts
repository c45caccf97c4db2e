import type { DashboardMainDto, StreamsStatisticsDto, TopDestinationsDto } from '@switchboard/contracts';
import { randomRanges, rng, seedZones, startStats, ZONES, type StatsTestApp } from './support';

/**
 * The dashboard's main figures, its top destinations and the stream statistics read whole local months from the month
 * rollups, the whole days left at a range's ends from the day rollups and the partial first and last day from the
 * hour rollups (docs/decisions/0070). Every answer must be the hour rollups' answer over the same instants: compared
 * here for random ranges (date-only and date-time ends, a few hours to over a year) in Europe/Berlin (both DST
 * changes), Asia/Kolkata (+05:30) and America/Sao_Paulo (-03:00), and for the year, month and all slices.
 */
const FAILED = ['sent_failed', 'undelivered', 'no_routes', 'rejected'];
const PENDING = ['accepted', 'sent'];

interface HourRow {
  bucket: string;
  day: string;
  month: string;
  stream: string;
  iso2: string;
  status: string;
  n: number;
  parts: number;
  cost: string;
}

type Totals = { total: number; delivered: number; failed: number; pending: number; parts: number; cost: string };
const zero = (): Totals => ({ total: 0, delivered: 0, failed: 0, pending: 0, parts: 0, cost: '0' });
const add = (t: Totals, r: HourRow): Totals => ({
  total: t.total + r.n,
  delivered: t.delivered + (r.status === 'delivered' ? r.n : 0),
  failed: t.failed + (FAILED.includes(r.status) ? r.n : 0),
  pending: t.pending + (PENDING.includes(r.status) ? r.n : 0),
  parts: t.parts + r.parts,
  cost: (BigInt(t.cost) + BigInt(r.cost)).toString(),
});
const sumBy = (rows: HourRow[], key: (r: HourRow) => string): Map<string, Totals> => {
  const out = new Map<string, Totals>();
  for (const r of rows) out.set(key(r), add(out.get(key(r)) ?? zero(), r));
  for (const [k, t] of out) if (t.total === 0 && t.cost === '0') out.delete(k);
  return out;
};
const micros = (cost: Array<{ micros: string }> | null) => (cost ?? []).reduce((n, c) => n + BigInt(c.micros), 0n).toString();

describe('stats: main figures, top destinations and stream statistics from the month rollups', () => {
  let s: StatsTestApp;

  beforeAll(async () => {
    s = await startStats({ cacheMs: 0 });
    await seedZones(s, 70);
  });
  afterAll(async () => s?.close());

  /**
   * The hour rollup's rows of [from, to) (null: open), with each bucket's local date and month in the zone, a row per
   * status of each count-shaped row (docs/decisions/0132): its count, and its parts and cost on the first status's row.
   */
  const hours = (account: string, from: string | null, to: string | null, streams: string[] | null = null) =>
    s
      .sql<{ bucket: string; day: string; month: string; stream: string; iso2: string; status: string; n: string; parts: string; cost: string }>(
        `SELECT to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS bucket, to_char(bucket AT TIME ZONE $4, 'YYYY-MM-DD') AS day,
                to_char(bucket AT TIME ZONE $4, 'YYYY-MM') AS month, stream_id::text AS stream, iso2, u.status, u.n::text AS n,
                (CASE WHEN u.j = 1 THEN parts ELSE 0 END)::text AS parts, (CASE WHEN u.j = 1 THEN cost_micros ELSE 0 END)::text AS cost
           FROM stats.rollup_counts_hour
          CROSS JOIN LATERAL unnest(ARRAY['accepted', 'sent', 'delivered', 'sent_failed', 'undelivered', 'no_routes', 'rejected'], ARRAY[n_accepted, n_sent, n_delivered, n_sent_failed, n_undelivered, n_no_routes, n_rejected])
                WITH ORDINALITY AS u(status, n, j)
          WHERE account_id = $1 AND ($2::timestamptz IS NULL OR bucket >= $2::timestamptz) AND ($3::timestamptz IS NULL OR bucket < $3::timestamptz)
            AND ($5::bigint[] IS NULL OR stream_id = ANY($5::bigint[]))`,
        [account, from, to, ZONES[account], streams],
      )
      .then((rows) => rows.map((r): HourRow => ({ ...r, n: Number(r.n), parts: Number(r.parts) })));

  /** Checks main (with and without a stream filter), top destinations and, for custom ranges, the stream statistics. */
  async function check(account: string, body: Record<string, unknown>): Promise<number> {
    const token = s.token(account);
    const label = JSON.stringify(body);
    const main = await s.call<DashboardMainDto>('POST', '/dashboard_statistics/main', { token, body });
    expect([label, main.status]).toEqual([label, 200]);
    const from = main.body.start;
    const to = main.body.end === null ? null : new Date(Date.parse(main.body.end) + 1000).toISOString();
    const rows = await hours(account, from, to);
    const all = sumBy(rows, () => '').get('') ?? zero();
    const t = main.body.totals;
    expect([label, { total: t.total, delivered: t.delivered, failed: t.failed, pending: t.pending, parts: t.parts, cost: micros(main.body.cost) }]).toEqual([label, all]);
    // per stream
    const perStream = sumBy(rows, (r) => r.stream);
    expect([label, new Map((main.body.streams ?? []).map((x) => [String(x.streamId), [x.total, x.delivered, x.failed, x.parts, micros(x.cost)]]))]).toEqual([
      label,
      new Map([...perStream].map(([k, x]) => [k, [x.total, x.delivered, x.failed, x.parts, x.cost]])),
    ]);
    // the series at its grain: hours (up to three days), local days (up to 400), local months
    const point = main.body.grain === 'hour' ? (r: HourRow) => r.bucket : main.body.grain === 'day' ? (r: HourRow) => r.day : (r: HourRow) => r.month;
    const want = [...sumBy(rows, point)].sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, x.total, x.delivered, x.failed, x.pending, x.cost]);
    expect([label, main.body.grain, main.body.series.map((p) => [p.bucket, p.total, p.delivered, p.failed, p.pending, p.costMicros])]).toEqual([label, main.body.grain, want]);
    // one stream only
    const one = await s.call<DashboardMainDto>('POST', '/dashboard_statistics/main', { token, body: { ...body, streams: [2] } });
    const oneWant = sumBy(await hours(account, from, to, ['2']), () => '').get('') ?? zero();
    expect([label, 'stream 2', one.body.totals.total, one.body.totals.delivered, micros(one.body.cost)]).toEqual([label, 'stream 2', oneWant.total, oneWant.delivered, oneWant.cost]);
    // top destinations
    const top = await s.call<TopDestinationsDto>('POST', '/dashboard_statistics/top_destinations', { token, body: { ...body, limit: 250 } });
    expect([label, top.body.start, top.body.end]).toEqual([label, main.body.start, main.body.end]);
    const perCountry = sumBy(rows, (r) => r.iso2);
    expect([label, new Map(top.body.items.map((c) => [c.country, [c.total, c.delivered, c.failed, micros(c.cost)]]))]).toEqual([
      label,
      new Map([...perCountry].map(([k, x]) => [k, [x.total, x.delivered, x.failed, x.cost]])),
    ]);
    // the stream pages' figures over the same range
    if (body.type === 'custom') {
      const q = new URLSearchParams({ start: String(body.start), end: String(body.end) });
      const st = await s.call<StreamsStatisticsDto>('GET', `/streams/statistics?${q.toString()}`, { token });
      expect([label, st.status, st.body.totals.total, st.body.totals.delivered, st.body.totals.parts]).toEqual([label, 200, all.total, all.delivered, all.parts]);
      expect([label, new Map(st.body.streams.map((x) => [String(x.streamId), x.total]))]).toEqual([label, new Map([...perStream].map(([k, x]) => [k, x.total]))]);
    }
    return all.total;
  }

  it.each(Object.entries(ZONES))('answers as the hour rollups do for random ranges and every slice (account %s, %s)', async (account) => {
    const r = rng(Number(account));
    let counted = 0;
    for (const { start, end } of randomRanges(r)) counted += await check(account, { type: 'custom', start, end });
    expect(counted).toBeGreaterThan(0);
    // whole months across both DST changes, a range over 400 days (a monthly series), the slices
    expect(await check(account, { type: 'custom', start: '2026-03-01', end: '2026-10-31' })).toBeGreaterThan(0);
    // whole months with whole days and partial days at both ends, each holding messages
    expect(await check(account, { type: 'custom', start: '2026-03-27T05:00:00Z', end: '2026-10-24T12:00:00Z' })).toBeGreaterThan(0);
    expect(await check(account, { type: 'custom', start: '2026-02-15T10:00:00Z', end: '2027-04-01T00:00:00Z' })).toBeGreaterThan(0);
    expect(await check(account, { type: 'year', date: '2026-06-01' })).toBeGreaterThan(0);
    expect(await check(account, { type: 'month', date: '2026-10-15' })).toBeGreaterThan(0);
    expect(await check(account, { type: 'all' })).toBeGreaterThan(0);
    // a few hundred calls: generous for a loaded runner
  }, 240_000);

  it('keeps the month rollups equal to the hour rollups summed per local month', async () => {
    // the count shape (docs/decisions/0132): by key without the status, the sums and every count
    const fromHours = await s.sql(
      `SELECT h.account_id, date_trunc('month', h.bucket AT TIME ZONE a.time_zone)::date::text AS m, h.stream_id, h.iso2, h.currency, sum(h.messages)::text AS n, sum(h.parts)::text AS p, sum(h.cost_micros)::text AS c,
              sum(h.n_accepted)::text AS n_accepted, sum(h.n_sent)::text AS n_sent, sum(h.n_delivered)::text AS n_delivered, sum(h.n_sent_failed)::text AS n_sent_failed, sum(h.n_undelivered)::text AS n_undelivered, sum(h.n_no_routes)::text AS n_no_routes, sum(h.n_rejected)::text AS n_rejected
         FROM stats.rollup_counts_hour h JOIN stats.account a USING (account_id) GROUP BY 1, 2, 3, 4, 5 HAVING sum(h.messages) <> 0 OR sum(h.cost_micros) <> 0 OR sum(h.n_accepted) <> 0 OR sum(h.n_sent) <> 0 OR sum(h.n_delivered) <> 0 OR sum(h.n_sent_failed) <> 0 OR sum(h.n_undelivered) <> 0 OR sum(h.n_no_routes) <> 0 OR sum(h.n_rejected) <> 0 ORDER BY 1, 2, 3, 4, 5`,
    );
    const months = await s.sql(
      `SELECT account_id, bucket::text AS m, stream_id, iso2, currency, messages::text AS n, parts::text AS p, cost_micros::text AS c, n_accepted::text, n_sent::text, n_delivered::text, n_sent_failed::text, n_undelivered::text, n_no_routes::text, n_rejected::text
         FROM stats.rollup_counts_month_country WHERE messages <> 0 OR cost_micros <> 0 OR n_accepted <> 0 OR n_sent <> 0 OR n_delivered <> 0 OR n_sent_failed <> 0 OR n_undelivered <> 0 OR n_no_routes <> 0 OR n_rejected <> 0 ORDER BY 1, 2, 3, 4, 5`,
    );
    expect(months).toEqual(fromHours);
    expect(months.length).toBeGreaterThan(100);
  });
});
