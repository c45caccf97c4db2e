import { Permission, type StreamsStatisticsDto } from '@switchboard/contracts';
import { accepted, customer, message, refunded, startStats, statusChanged, stream, type StatsTestApp } from './support';

/** GET /streams/statistics and POST /streams/subscribe, answered by stats from the rollups (docs/decisions/0028). */
describe('stats: the stream pages figures (streams/statistics, streams/subscribe)', () => {
  let s: StatsTestApp;
  const A = '701';
  const B = '702';
  const stats = (token: string, qs = '') => s.call<StreamsStatisticsDto>('GET', `/streams/statistics${qs}`, { token });
  const subscribe = (token: string, body: Record<string, unknown>) => s.call<StreamsStatisticsDto>('POST', '/streams/subscribe', { token, body });

  let recentLocalDay = '';

  beforeAll(async () => {
    s = await startStats({ cacheMs: 120_000 });
    await s.publish([customer(A, 'Asia/Kolkata'), customer(B, 'UTC'), stream(A, '11', 'Orders'), stream(A, '12', 'Alerts'), stream(B, '21', 'Other')]);
    const now = new Date();
    const recent = new Date(now.getTime() - 2 * 3600_000).toISOString();
    // the day `recent` falls on in Asia/Kolkata (+05:30, no DST)
    recentLocalDay = new Date(Date.parse(recent) + 5.5 * 3600_000).toISOString().slice(0, 10);
    const m1 = message({ account: A, stream: '11', acceptedAt: recent, segments: 2, priceMicros: 20_000 });
    const m2 = message({ account: A, stream: '11', acceptedAt: recent });
    const m3 = message({ account: A, stream: '12', acceptedAt: recent });
    // a year ago, +05:30: 2025-06-01 00:10 local is 2025-05-31 18:40 UTC
    const old = message({ account: A, stream: '12', acceptedAt: '2025-05-31T18:40:00Z' });
    const other = message({ account: B, stream: '21', acceptedAt: recent });
    await s.publish([m1, m2, m3, old, other].map((m) => accepted(m)));
    await s.publish([statusChanged(m1, 'delivered'), statusChanged(m2, 'sent'), statusChanged(m3, 'no_routes'), refunded(m3, 50_000), statusChanged(m1, 'sent')]);
  });
  afterAll(async () => s?.close());

  it('answers the figures per stream and status in the shape the stream pages read, the default one day back', async () => {
    const r = await stats(s.token(A));
    expect(r.status).toBe(200);
    expect(r.body.totals).toEqual({ accepted: 0, sent: 1, delivered: 1, sent_failed: 0, undelivered: 0, no_routes: 1, rejected: 0, total: 3, parts: 4, cost: 0.07 });
    expect(r.body.streams).toEqual([
      expect.objectContaining({ streamId: 11, name: 'Orders', streamType: 2, streamUid: expect.any(String), delivered: 1, sent: 1, total: 2, parts: 3, cost: 0.07 }),
      expect.objectContaining({ streamId: 12, name: 'Alerts', no_routes: 1, total: 1, cost: 0 }),
    ]);
    expect(Date.parse(r.body.end as string) - Date.parse(r.body.start as string)).toBeGreaterThanOrEqual(86_400_000 - 1);
    const one = await stats(s.token(A), '?streamId=12');
    expect(one.body.streams.map((x) => x.streamId)).toEqual([12]);
    expect(one.body.totals.total).toBe(1);
  });

  it('reads date-only ranges and slices in the account zone, like the dashboard', async () => {
    // 2025-06-01 in Asia/Kolkata holds the old message although it was 2025-05-31 in UTC
    expect((await stats(s.token(A), '?start=2025-06-01&end=2025-06-01')).body).toMatchObject({ start: '2025-05-31T18:30:00.000Z', end: '2025-06-01T18:29:59.999Z', totals: { total: 1, accepted: 1 } });
    expect((await stats(s.token(A), '?start=2025-05-31&end=2025-05-31')).body.totals.total).toBe(0);
    expect((await subscribe(s.token(A), { type: 'day', date: '2025-06-01' })).body.totals.total).toBe(1);
    expect((await subscribe(s.token(A), { type: 'year', date: '2025-06-01', streamId: 12 })).body.totals.total).toBe(1);
    expect((await subscribe(s.token(A), { type: 'custom', start: '2025-06-01', end: '2025-06-02', streamId: '/api/streams/12' })).body.totals.total).toBe(1);
    expect((await subscribe(s.token(A), { type: 'all' })).body.totals.total).toBe(4);
    expect((await subscribe(s.token(A), { type: 1, date: recentLocalDay })).body.totals.total).toBe(3);
    expect((await subscribe(s.token(A), { type: 'year', date: '2024-06-01' })).body.totals.total).toBe(0);
  });

  it('refuses a slice it does not know, a custom slice without its range and a bad stream id, with 0x1', async () => {
    for (const body of [{ type: 'decade' }, { type: 'custom' }, {}, { type: 'day', streamId: 'x' }]) {
      const r = await subscribe(s.token(A), body);
      expect([JSON.stringify(body), r.status, (r.body as unknown as { code: string }).code]).toEqual([JSON.stringify(body), 400, '0x1']);
    }
    expect((await stats(s.token(A), '?start=yesterday')).status).toBe(400);
  });

  it("shows an account its own streams only, needs STREAM_VIEW and a token", async () => {
    const b = await subscribe(s.token(B), { type: 'all' });
    expect(b.body.totals.total).toBe(1);
    expect(b.body.streams.map((x) => x.streamId)).toEqual([21]);
    // naming another account's stream shows nothing of it
    expect((await stats(s.token(B), '?streamId=11')).body.totals.total).toBe(0);
    expect((await stats(s.token(A, [Permission.DashboardView]))).status).toBe(403);
    expect((await subscribe(s.token(A, [Permission.DashboardView]), { type: 'all' })).status).toBe(403);
    expect((await stats(s.token(A, [Permission.StreamView]))).status).toBe(200);
    expect((await s.call('GET', '/streams/statistics')).status).toBe(401);
  });

  it('agrees with the dashboard over the same slice', async () => {
    const dash = await s.call<{ totals: { total: number; delivered: number } }>('POST', '/dashboard_statistics/main', { token: s.token(A), body: { type: 'all' } });
    const mine = await subscribe(s.token(A), { type: 'all' });
    expect(mine.body.totals).toMatchObject({ total: dash.body.totals.total, delivered: dash.body.totals.delivered });
  });
});
