import { Client } from 'pg';
import { SmppPeer } from '../src';
import { smppVendor, startDispatch, type DispatchTestApp } from './support';

/** The series a Prometheus scrape of a service must find (docs/decisions/0039-observability.md). */
describe('GET /metrics', () => {
  const peer = new SmppPeer({ throttleFirst: 2 });
  let d: DispatchTestApp;

  beforeAll(async () => {
    d = await startDispatch({ seedVendors: [smppVendor(await peer.listen())] });
    await d.until(() => peer.binds > 0);
  });

  afterAll(async () => {
    await d.close();
    await peer.close();
  });

  const scrape = async (headers: Record<string, string> = {}) => {
    const res = await fetch(`${d.t.url}/metrics`, { headers });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  };

  const value = (text: string, series: RegExp): number => {
    const line = text.split('\n').find((l) => series.test(l));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : NaN;
  };

  it('reports HTTP by route template, consumer groups, the outbox, process health and dispatch per vendor', async () => {
    const uuid = await d.accept({ destination: '+4915100000777' });
    await d.untilStatus(uuid, 'delivered');
    await d.flushOutbox();
    expect((await d.call('GET', `/service_type_manager/vendor/999999`, { token: d.adminToken() })).status).toBe(404);
    const m = await scrape();
    expect(m.status).toBe(200);
    expect(m.type).toContain('text/plain');
    // a route template, never the id asked for
    expect(m.text).toMatch(/switchboard_http_requests_total\{method="GET",route="\/api\/service_type_manager\/vendor\/:id",status="404"\} [1-9]/);
    expect(m.text).not.toContain('999999');
    expect(m.text).toMatch(/switchboard_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/service_type_manager\/vendor\/:id"\}/);
    expect(value(m.text, /^switchboard_bus_events_handled_total\{group="dispatch[^"]*",type="streams.message.accepted",outcome="ok"\}/)).toBeGreaterThanOrEqual(1);
    expect(m.text).toMatch(/switchboard_bus_handler_duration_seconds_count\{group="dispatch/);
    expect(m.text).toMatch(/switchboard_bus_consumer_lag_seconds\{group="dispatch/);
    expect(m.text).toMatch(/switchboard_outbox_backlog\{schema="dispatch"\} 0/);
    expect(m.text).toMatch(/switchboard_outbox_oldest_age_seconds\{schema="dispatch"\} 0/);
    expect(value(m.text, /^switchboard_outbox_published_total\{schema="dispatch"\}/)).toBeGreaterThanOrEqual(2);
    expect(value(m.text, /^switchboard_dispatch_sends_total\{vendor="\d+",outcome="accepted"\}/)).toBeGreaterThanOrEqual(1);
    expect(value(m.text, /^switchboard_dispatch_receipts_total\{vendor="\d+",outcome="delivered"\}/)).toBeGreaterThanOrEqual(1);
    expect(value(m.text, /^switchboard_dispatch_throttles_total\{vendor="\d+"\}/)).toBeGreaterThanOrEqual(2);
    expect(m.text).toMatch(/^switchboard_process_cpu_seconds_total /m);
    expect(m.text).toMatch(/^switchboard_nodejs_eventloop_lag_seconds /m);
  });

  it('shows the backlog of an outbox whose events are not published yet', async () => {
    await d.sql(
      `INSERT INTO dispatch.outbox (event_id, topic, key, type, payload, created_at) VALUES (gen_random_uuid(), 'x', 'k', 'test.metrics.waiting', '{}'::jsonb, now() - interval '90 seconds')`,
    );
    // the row held by another session, as a slow writer's would be: the running relay skips it (SKIP LOCKED) rather
    // than publish it before the scrape
    const holder = new Client({ connectionString: d.t.db.url });
    await holder.connect();
    let m: Awaited<ReturnType<typeof scrape>>;
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT id FROM dispatch.outbox WHERE type = 'test.metrics.waiting' FOR UPDATE`);
      m = await scrape();
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
    await d.sql(`DELETE FROM dispatch.outbox WHERE type = 'test.metrics.waiting'`);
    expect(value(m.text, /^switchboard_outbox_backlog\{schema="dispatch"\}/)).toBeGreaterThanOrEqual(1);
    expect(value(m.text, /^switchboard_outbox_oldest_age_seconds\{schema="dispatch"\}/)).toBeGreaterThanOrEqual(89);
  });

  it('is not served to requests that came through a proxy (the public entry)', async () => {
    expect((await scrape({ 'x-forwarded-for': '203.0.113.9' })).status).toBe(404);
    expect((await scrape({ forwarded: 'for=203.0.113.9' })).status).toBe(404);
  });
});
