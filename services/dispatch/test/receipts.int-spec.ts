import { randomUUID } from 'node:crypto';
import { SmppPeer } from '../src';
import { smppVendor, startDispatch, type DispatchTestApp } from './support';

const statusEvents = (d: DispatchTestApp, uuid: string) =>
  d.statusChanges().filter((e) => (e.data as { messageUuid: string }).messageUuid === uuid).map((e) => e.data as { status: string; outgoingStatus: string | null; possibleDuplicate?: boolean });

describe('receipts: early, twice, out of order', () => {
  let peer: SmppPeer;
  let quiet: SmppPeer;
  let d: DispatchTestApp;
  let vendorId: string;

  beforeAll(async () => {
    // one SMSC sends each receipt before the submit response and twice; the other sends none (receipts are replayed by hand)
    peer = new SmppPeer({ receiptBeforeResponse: true, duplicateReceipts: true });
    quiet = new SmppPeer({ receipts: false });
    const [p1, p2] = [await peer.listen(), await quiet.listen()];
    d = await startDispatch({ seedVendors: [smppVendor(p1), { ...smppVendor(p2), name: 'Quiet SMSC' }] });
    const [quietVendor] = await d.sql<{ id: string }>(`SELECT id::text FROM dispatch.vendor WHERE name = 'Quiet SMSC'`);
    vendorId = quietVendor.id;
    await d.until(() => peer.binds > 0 && quiet.binds > 0);
  });

  afterAll(async () => {
    await d.close();
    await peer.close();
    await quiet.close();
  });

  async function routeTo(vendor: string, iso2: string): Promise<void> {
    const res = await d.call('PUT', '/service_type_manager/countries_mapping', { token: d.adminToken(), body: { iso2, serviceType: 'sms', vendorIds: [vendor] } });
    expect(res.status).toBe(200);
  }

  it('matches a receipt that arrived before the submit response, and ignores its duplicate', async () => {
    const uuid = await d.accept({ destination: '+4915100000001' });
    await d.untilStatus(uuid, 'delivered');
    await d.flushOutbox();
    expect(statusEvents(d, uuid).map((e) => e.status)).toEqual(['delivered']);
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.pending_receipt`)).length === 0);
  });

  it('keeps the first final receipt: a later undelivered or a replayed delivered changes nothing', async () => {
    await routeTo(vendorId, 'FR');
    const uuid = await d.accept({ destination: '+33612345678', iso2: 'FR' });
    const sent = await d.untilStatus(uuid, 'sent');
    const [pid] = sent.provider_ids as string[];
    await d.dispatcher.receipt({ vendorId, providerMessageId: pid, outcome: 'delivered', error: null, at: new Date() });
    await d.dispatcher.receipt({ vendorId, providerMessageId: pid, outcome: 'undelivered', error: 'UNDELIV', at: new Date() });
    await d.dispatcher.receipt({ vendorId, providerMessageId: pid, outcome: 'delivered', error: null, at: new Date() });
    const row = await d.untilStatus(uuid, 'delivered');
    expect(row.error).toBeNull();
    await d.flushOutbox();
    expect(statusEvents(d, uuid).map((e) => e.status)).toEqual(['sent', 'delivered']);
    // a single-part message's outcome is its status: its part is not written (docs/decisions/0214)
    expect(
      await d.sql(`SELECT outcome FROM dispatch.provider_ref WHERE vendor_id = $1 AND provider_message_id = $2 AND message_id = (SELECT id FROM dispatch.message WHERE uuid = $3)`, [vendorId, pid, uuid]),
    ).toEqual([{ outcome: null }]);
  });

  it('finalises a long message only when every part has reported, whatever the order, undelivered if one part was', async () => {
    await routeTo(vendorId, 'FR');
    const text = 'x'.repeat(153 * 2 + 10); // 3 parts
    const uuid = await d.accept({ destination: '+33612345679', iso2: 'FR', text, segments: 3 });
    const sent = await d.untilStatus(uuid, 'sent');
    const [p1, p2, p3] = sent.provider_ids as string[];
    await d.dispatcher.receipt({ vendorId, providerMessageId: p3, outcome: 'delivered', error: null, at: new Date() });
    await d.dispatcher.receipt({ vendorId, providerMessageId: p2, outcome: 'undelivered', error: 'UNDELIV err:001', at: new Date() });
    await d.dispatcher.receipt({ vendorId, providerMessageId: p3, outcome: 'delivered', error: null, at: new Date() });
    const [still] = await d.sql(`SELECT status FROM dispatch.message WHERE uuid = $1`, [uuid]);
    expect(still.status).toBe('sent');
    await d.dispatcher.receipt({ vendorId, providerMessageId: p1, outcome: 'delivered', error: null, at: new Date() });
    const row = await d.untilStatus(uuid, 'undelivered');
    expect(row.error).toBe('UNDELIV err:001');
  });

  it('keeps a receipt for an id nobody knows yet and applies it once that id is recorded', async () => {
    const uuid = await d.accept({ destination: '+33612345680', iso2: 'FR' });
    const sent = await d.untilStatus(uuid, 'sent');
    const [pid] = sent.provider_ids as string[];
    const early = `early-${randomUUID()}`;
    await d.dispatcher.receipt({ vendorId, providerMessageId: early, outcome: 'delivered', error: null, at: new Date() });
    expect(await d.sql(`SELECT outcome FROM dispatch.pending_receipt WHERE provider_message_id = $1`, [early])).toEqual([{ outcome: 'delivered' }]);
    // the id becomes known (as if its submit response were recorded by another instance)
    await d.sql(`INSERT INTO dispatch.provider_ref (vendor_id, provider_message_id, message_id, part, parts) SELECT $1, $2, id, 1, 1 FROM dispatch.message WHERE uuid = $3`, [vendorId, early, uuid]);
    await d.untilStatus(uuid, 'delivered');
    expect(pid).toBeTruthy();
  });
});
