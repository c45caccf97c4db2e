import { MessageEdrV1, MessageStatusChangedV1, MessageStatusesChangedV1, statusChangesOf } from '@switchboard/contracts';
import { SmppPeer } from '../src';
import { smppVendor, startDispatch, type DispatchTestApp } from './support';

/** `statusBatches` on, the default since 0173 stop 29 (docs/decisions/0173): a write batch's status changes leave dispatch as one event. */
describe('status changes as one event per write batch', () => {
  let peer: SmppPeer;
  let d: DispatchTestApp;

  beforeAll(async () => {
    peer = new SmppPeer();
    const port = await peer.listen();
    d = await startDispatch({ seedVendors: [smppVendor(port)] });
    await d.until(() => d.dispatcher.stats !== undefined && peer.binds > 0);
  });

  afterAll(async () => {
    await d.close();
    await peer.close();
  });

  it('publishes batches of status changes that carry each message\'s changes under its own account, and no per-message status change; EDRs stay per message', async () => {
    const uuids = [await d.accept({ text: 'one', accountId: '1' }), await d.accept({ text: 'two', accountId: '2', streamId: '20', destination: '+491700000006' }), await d.accept({ text: 'three', accountId: '1' })];
    for (const u of uuids) await d.untilStatus(u, 'delivered');
    await d.flushOutbox();
    expect(d.events(MessageStatusChangedV1.type)).toEqual([]);
    const batches = d.events(MessageStatusesChangedV1.type);
    expect(batches.length).toBeGreaterThan(0);
    for (const b of batches) {
      expect(b.accountId).toBeNull();
      MessageStatusesChangedV1.schema.parse(b.data);
    }
    const changes = batches.flatMap((b) => statusChangesOf(b));
    for (const [i, u] of uuids.entries()) {
      const mine = changes.filter((e) => (e.data as { messageUuid: string }).messageUuid === u);
      // sent is announced on its own unless the receipt committed together with the submit response
      expect([['sent', 'delivered'], ['delivered']]).toContainEqual(mine.map((e) => (e.data as { status: string }).status));
      expect(mine.map((e) => e.accountId)).toEqual(mine.map(() => (i === 1 ? '2' : '1')));
      expect(new Set(mine.map((e) => e.id)).size).toBe(mine.length);
    }
    const edrs = d.events(MessageEdrV1.type).filter((e) => uuids.includes((e.data as { messageUuid: string }).messageUuid));
    expect(edrs.map((e) => e.accountId).sort()).toEqual(['1', '1', '2']);
  });
});
