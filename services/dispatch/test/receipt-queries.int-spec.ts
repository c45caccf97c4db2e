import { SmppPeer } from '../src';
import { smppVendor, startDispatch, type DispatchTestApp } from './support';

const statuses = (d: DispatchTestApp, uuid: string) =>
  d
    .statusChanges()
    .filter((e) => (e.data as { messageUuid: string }).messageUuid === uuid)
    .map((e) => (e.data as { status: string }).status);

/**
 * Receipts lost with a connection: three SMSCs that never send receipts. One answers query_sm with the message's
 * state, one says "en route" for ever, one refuses query_sm (carriers without it). Receipts are overdue after 100 ms,
 * and a message without a final status expires after a configured 4 s (instead of 72 h).
 */
describe('receipts asked for with query_sm, and the configurable receipt expiry', () => {
  const answering = new SmppPeer({ receipts: false, querySm: 'answer', undeliveredFor: new Set(['4915100000002']) });
  const enRoute = new SmppPeer({ receipts: false, querySm: 'pending' });
  const refusing = new SmppPeer({ receipts: false, querySm: 'refuse' });
  let d: DispatchTestApp;
  const vendor: Record<string, string> = {};

  beforeAll(async () => {
    const ports = [await answering.listen(), await enRoute.listen(), await refusing.listen()];
    const names = ['Answering SMSC', 'En route SMSC', 'Refusing SMSC'];
    d = await startDispatch({
      dispatcher: { queryIntervalMs: 100, queryRepeatMs: 300, receiptTimeoutMs: 4000 },
      seedVendors: ports.map((p, i) => ({ ...smppVendor(p, { receiptOverdueMs: 100 }), name: names[i] })),
    });
    for (const row of await d.sql<{ id: string; name: string }>(`SELECT id::text, name FROM dispatch.vendor`)) vendor[row.name] = row.id;
    for (const [iso2, name] of [['DE', 'Answering SMSC'], ['FR', 'En route SMSC'], ['IT', 'Refusing SMSC']]) {
      const res = await d.call('PUT', '/service_type_manager/countries_mapping', { token: d.adminToken(), body: { iso2, serviceType: 'sms', vendorIds: [vendor[name]] } });
      expect(res.status).toBe(200);
    }
    await d.until(() => answering.binds > 0 && enRoute.binds > 0 && refusing.binds > 0);
  });

  afterAll(async () => {
    await d.close();
    await Promise.all([answering.close(), enRoute.close(), refusing.close()]);
  });

  it('finalises a message whose receipt never came from the carrier\'s answer, delivered or undelivered, long ones part by part', async () => {
    const delivered = await d.accept({ destination: '+4915100000001', iso2: 'DE' });
    const undelivered = await d.accept({ destination: '+4915100000002', iso2: 'DE' });
    const long = await d.accept({ destination: '+4915100000003', iso2: 'DE', text: 'y'.repeat(153 * 2 + 5), segments: 3 });
    await d.untilStatus(delivered, 'delivered');
    const u = await d.untilStatus(undelivered, 'undelivered');
    expect(String(u.error)).toContain('UNDELIVERABLE');
    await d.untilStatus(long, 'delivered');
    await d.flushOutbox();
    expect(statuses(d, delivered)).toEqual(['sent', 'delivered']);
    expect(statuses(d, undelivered)).toEqual(['sent', 'undelivered']);
    expect(answering.queries).toBeGreaterThanOrEqual(5);
  });

  it('leaves a message the carrier says is en route as sent, asks again later, and expires it at the configured timeout', async () => {
    const uuid = await d.accept({ destination: '+33612345001', iso2: 'FR' });
    await d.untilStatus(uuid, 'sent');
    await d.until(() => enRoute.queries >= 2);
    const [row] = await d.sql<{ status: string }>(`SELECT status FROM dispatch.message WHERE uuid = $1`, [uuid]);
    expect(row.status).toBe('sent');
    const expired = await d.untilStatus(uuid, 'undelivered', 15_000);
    expect(String(expired.error)).toContain('EXPIRED');
  });

  it('changes nothing when the carrier refuses query_sm, and still expires the message', async () => {
    const uuid = await d.accept({ destination: '+393331234567', iso2: 'IT' });
    await d.untilStatus(uuid, 'sent');
    await d.until(() => refusing.queries >= 1);
    expect(await d.dispatcher.queryOverdue()).toBe(0);
    const [row] = await d.sql<{ status: string }>(`SELECT status FROM dispatch.message WHERE uuid = $1`, [uuid]);
    expect(row.status).toBe('sent');
    await d.untilStatus(uuid, 'undelivered', 15_000);
  });
});
