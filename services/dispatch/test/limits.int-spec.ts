import { SmppPeer } from '../src';
import { smppVendor, startDispatch, type DispatchTestApp } from './support';

describe('account TPS in the dispatcher', () => {
  let peer: SmppPeer;
  let d: DispatchTestApp;

  beforeAll(async () => {
    peer = new SmppPeer();
    const port = await peer.listen();
    d = await startDispatch({ seedVendors: [smppVendor(port)] });
    await d.until(() => peer.binds > 0);
  });

  afterAll(async () => {
    await d.close();
    await peer.close();
  });

  it('holds an account to its TPS from the accounts snapshot: the excess waits in the queue, uncounted as attempts, and all arrive', async () => {
    await d.setAccountTps('3', 5);
    const uuids: string[] = [];
    for (let i = 0; i < 24; i++) uuids.push(await d.accept({ accountId: '3', destination: `+49151000030${String(i).padStart(2, '0')}` }));
    for (const uuid of uuids) await d.untilStatus(uuid, 'delivered');
    // 24 at 5/s with a burst of 1: what is due more than a second later waits in memory up to three seconds ahead (the
    // park, decision 0078); what is due later than that goes back to the queue with its slot
    expect(d.dispatcher.stats.deferred).toBeGreaterThan(0);
    const rows = await d.sql<{ attempts: number }>(`SELECT attempts FROM dispatch.message WHERE uuid = ANY($1::uuid[])`, [uuids]);
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
    // each went out exactly once
    const sent = peer.parts.filter((p) => p.destination.startsWith('49151000030')).map((p) => p.at);
    expect(sent).toHaveLength(24);
  });

  it('leaves an account without a limit alone', async () => {
    const before = d.dispatcher.stats.deferred;
    const uuids = await Promise.all(Array.from({ length: 20 }, (_, i) => d.accept({ accountId: '4', destination: `+49151000040${String(i).padStart(2, '0')}` })));
    for (const uuid of uuids) await d.untilStatus(uuid, 'delivered');
    expect(d.dispatcher.stats.deferred).toBe(before);
  });
});
