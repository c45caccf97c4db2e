import { AdapterRegistry, SmppAdapter, SmppPeer } from '../src';
import { smppVendor, startDispatch, type DispatchTestApp } from './support';

const destination = (prefix: string, i: number) => `+49151${prefix}${String(i).padStart(5, '0')}`;

describe('carrier quirks: a carrier that throttles', () => {
  let peer: SmppPeer;
  let d: DispatchTestApp;
  let vendorId: string;

  beforeAll(async () => {
    // the carrier takes 200 submit_sm/s; the bind is configured for 1,000/s
    peer = new SmppPeer({ throttleRate: 200 });
    const port = await peer.listen();
    d = await startDispatch({ seedVendors: [smppVendor(port, { tps: 1000, window: 64 })] });
    [{ id: vendorId }] = await d.sql<{ id: string }>(`SELECT id::text FROM dispatch.vendor WHERE name = 'Local SMSC'`);
    await d.until(() => peer.binds > 0);
  });

  afterAll(async () => {
    await d.close();
    await peer.close();
  });

  it('delivers every message once through a throttling SMSC, fails none, and the bind slows to the carrier', async () => {
    const n = 400;
    const uuids = await Promise.all(Array.from({ length: n }, (_, i) => d.accept({ destination: destination('7', i) })));
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.message WHERE uuid = ANY($1::uuid[]) AND status = 'delivered'`, [uuids])).length === n, 60_000);
    const rows = await d.sql<{ status: string; attempts: number; possible_duplicate: boolean }>(
      `SELECT status, attempts, possible_duplicate FROM dispatch.message WHERE uuid = ANY($1::uuid[])`,
      [uuids],
    );
    expect(rows.filter((r) => r.status !== 'delivered' || r.attempts !== 1 || r.possible_duplicate)).toEqual([]);
    // the carrier refused some and took each message exactly once
    expect(peer.throttledResponses).toBeGreaterThan(0);
    const taken = peer.parts.filter((p) => p.destination.startsWith('491517'));
    expect(taken).toHaveLength(n);
    expect(new Set(taken.map((p) => p.destination)).size).toBe(n);
    // the pacer halved on the refusals and runs below the configured 1,000/s, near the carrier's rate
    const adapter = d.t.app.get(AdapterRegistry).get(vendorId);
    expect(adapter).toBeInstanceOf(SmppAdapter);
    const [bind] = (adapter as SmppAdapter).pacing();
    expect(bind.throttled).toBe(peer.throttledResponses);
    expect(bind.decreases).toBeGreaterThan(0);
    expect(bind.rate).toBeLessThan(1000);
    expect(bind.throttledAt).toBeLessThan(1000);
  });
});
