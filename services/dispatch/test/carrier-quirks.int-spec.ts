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
    // crash recovery well out of the way: with the tests' 1 s staleness, a loaded machine's late heartbeat hands the
    // in-flight messages on as possible duplicates (attempts 2), which is recovery working, not what this test asks
    d = await startDispatch({ seedVendors: [smppVendor(port, { tps: 1000, window: 64 })], dispatcher: { staleAfterMs: 30_000 } });
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

describe('carrier quirks: a carrier that reuses its message ids', () => {
  let peer: SmppPeer;
  let quiet: SmppPeer;
  let d: DispatchTestApp;
  let quietVendor: string;

  // numbers whose receipts say UNDELIV in the second round only (filled after the restart): the new messages to them
  // must end undelivered, the old ones to them stay delivered
  const undelivered = new Set<string>();

  beforeAll(async () => {
    // receipts a moment after the submit response, as from a handset: matched by id, not with their submit response
    peer = new SmppPeer({ undeliveredFor: undelivered, receiptDelayMs: 100 });
    quiet = new SmppPeer({ receipts: false });
    const [p1, p2] = [await peer.listen(), await quiet.listen()];
    d = await startDispatch({
      seedVendors: [smppVendor(p1, { window: 64 }), { ...smppVendor(p2), name: 'Quiet SMSC', config: { ...smppVendor(p2).config, receiptOverdueMs: 60_000 } }],
    });
    [{ id: quietVendor }] = await d.sql<{ id: string }>(`SELECT id::text FROM dispatch.vendor WHERE name = 'Quiet SMSC'`);
    await d.until(() => peer.binds > 0 && quiet.binds > 0);
  });

  afterAll(async () => {
    await d.close();
    await peer.close();
    await quiet.close();
  });

  const allFinal = (uuids: string[]) => async () =>
    (await d.sql(`SELECT 1 FROM dispatch.message WHERE uuid = ANY($1::uuid[]) AND status IN ('delivered', 'undelivered')`, [uuids])).length === uuids.length;

  it('after an SMSC restart that numbers its ids from 1 again, every new message takes its own receipt and old final ones are untouched', async () => {
    const n = 300;
    // round 1: ids 1..n, all delivered
    const before = await Promise.all(Array.from({ length: n }, (_, i) => d.accept({ destination: destination('8', i) })));
    await d.until(allFinal(before), 60_000);
    const snapshot = await d.sql<{ uuid: string; status: string; provider_ids: string[]; updated_at: Date }>(
      `SELECT uuid, status, provider_ids, updated_at FROM dispatch.message WHERE uuid = ANY($1::uuid[]) ORDER BY uuid`,
      [before],
    );
    expect(snapshot.every((r) => r.status === 'delivered')).toBe(true);
    const firstIds = new Set(snapshot.map((r) => r.provider_ids[0]));
    await d.flushOutbox();
    const eventsOf = (uuids: string[]) => d.statusChanges().filter((e) => uuids.includes((e.data as { messageUuid: string }).messageUuid)).length;
    const oldEvents = eventsOf(before);

    // the SMSC restarts without its state: ids from 1 again, the same numbers again (to the same handsets)
    await peer.restart();
    peer.parts.length = 0;
    await d.until(() => peer.binds >= 2);
    for (let i = 0; i < n; i += 10) undelivered.add(destination('8', i).slice(1));
    const after = await Promise.all(Array.from({ length: n }, (_, i) => d.accept({ destination: destination('8', i) })));
    await d.until(allFinal(after), 60_000);

    const rows = await d.sql<{ uuid: string; status: string; destination: string; provider_ids: string[] }>(
      `SELECT uuid, status, destination, provider_ids FROM dispatch.message WHERE uuid = ANY($1::uuid[])`,
      [after],
    );
    // the carrier did reuse the ids, and each new message reached the status its own receipt said
    expect(rows.filter((r) => firstIds.has(r.provider_ids[0])).length).toBe(n);
    for (const r of rows) expect([r.destination, r.status]).toEqual([r.destination, undelivered.has(r.destination.slice(1)) ? 'undelivered' : 'delivered']);
    // the old messages: final, unchanged, no event since
    const again = await d.sql<{ uuid: string; status: string; provider_ids: string[]; updated_at: Date }>(
      `SELECT uuid, status, provider_ids, updated_at FROM dispatch.message WHERE uuid = ANY($1::uuid[]) ORDER BY uuid`,
      [before],
    );
    expect(again).toEqual(snapshot);
    await d.flushOutbox();
    expect(eventsOf(before)).toBe(oldEvents);
    expect(await d.sql(`SELECT 1 FROM dispatch.message WHERE uuid = ANY($1::uuid[]) AND status = 'sent'`, [after])).toEqual([]);
  });

  it('matches a reused id to the newest waiting message, to the older one when the receipt names its number, and never to a final one', async () => {
    await routeTo(d, quietVendor, 'FR');
    const c = await d.accept({ destination: '+33612340003', iso2: 'FR' });
    const e = await d.accept({ destination: '+33612340004', iso2: 'FR' });
    for (const u of [c, e]) await d.untilStatus(u, 'sent');
    // c and e were given the same id by the quiet carrier (as after a restart); e is the newer use
    await d.sql(`UPDATE dispatch.provider_ref SET provider_message_id = 'reused-1', sent_at = now() - interval '1 minute' WHERE message_id = (SELECT id FROM dispatch.message WHERE uuid = $1)`, [c]);
    await d.sql(`UPDATE dispatch.provider_ref SET provider_message_id = 'reused-1' WHERE message_id = (SELECT id FROM dispatch.message WHERE uuid = $1)`, [e]);
    // naming c's number (national form), the receipt goes to c although e is newer
    await d.dispatcher.receipt({ vendorId: quietVendor, providerMessageId: 'reused-1', outcome: 'undelivered', error: 'UNDELIV err:001', at: new Date(), destination: '0612340003' });
    expect((await d.untilStatus(c, 'undelivered')).error).toBe('UNDELIV err:001');
    // naming no number: the newest still waiting, e
    await d.dispatcher.receipt({ vendorId: quietVendor, providerMessageId: 'reused-1', outcome: 'delivered', error: null, at: new Date() });
    await d.untilStatus(e, 'delivered');
    // both final now: a further report of that id changes neither, and is not kept for later
    const receiptsForFinal = d.dispatcher.stats.receiptsForFinal;
    await d.dispatcher.receipt({ vendorId: quietVendor, providerMessageId: 'reused-1', outcome: 'delivered', error: null, at: new Date() });
    expect(d.dispatcher.stats.receiptsForFinal).toBe(receiptsForFinal + 1);
    expect((await d.sql<{ status: string }>(`SELECT status FROM dispatch.message WHERE uuid = $1`, [c]))[0].status).toBe('undelivered');
    expect(await d.sql(`SELECT 1 FROM dispatch.pending_receipt WHERE provider_message_id = 'reused-1'`)).toEqual([]);
  });

  it('does not match a part sent longer ago than the receipt timeout, nor one to another number', async () => {
    await routeTo(d, quietVendor, 'FR');
    const old = await d.accept({ destination: '+33612340010', iso2: 'FR' });
    const other = await d.accept({ destination: '+33612340011', iso2: 'FR' });
    await d.untilStatus(old, 'sent');
    await d.untilStatus(other, 'sent');
    await d.sql(`UPDATE dispatch.provider_ref SET provider_message_id = 'aged-1', sent_at = now() - interval '73 hours' WHERE message_id = (SELECT id FROM dispatch.message WHERE uuid = $1)`, [old]);
    await d.sql(`UPDATE dispatch.provider_ref SET provider_message_id = 'other-1' WHERE message_id = (SELECT id FROM dispatch.message WHERE uuid = $1)`, [other]);
    await d.dispatcher.receipt({ vendorId: quietVendor, providerMessageId: 'aged-1', outcome: 'delivered', error: null, at: new Date() });
    await d.dispatcher.receipt({ vendorId: quietVendor, providerMessageId: 'other-1', outcome: 'delivered', error: null, at: new Date(), destination: '33699999999' });
    // neither was applied: both are kept as receipts whose message is not known
    expect(await d.sql(`SELECT provider_message_id FROM dispatch.pending_receipt WHERE provider_message_id IN ('aged-1', 'other-1') ORDER BY 1`)).toEqual([
      { provider_message_id: 'aged-1' },
      { provider_message_id: 'other-1' },
    ]);
    const rows = await d.sql<{ status: string }>(`SELECT status FROM dispatch.message WHERE uuid = ANY($1::uuid[])`, [[old, other]]);
    expect(rows.map((r) => r.status)).toEqual(['sent', 'sent']);
  });

  it('keeps the newest of two reports of one unknown id naming different numbers, in one write batch', async () => {
    const at = Date.now();
    // together, so they share a write batch: two uses of one id the carrier reported before their submit responses
    await Promise.all([
      d.dispatcher.receipt({ vendorId: quietVendor, providerMessageId: 'twin-1', outcome: 'delivered', error: null, at: new Date(at), destination: '33611110001' }),
      d.dispatcher.receipt({ vendorId: quietVendor, providerMessageId: 'twin-1', outcome: 'delivered', error: null, at: new Date(at + 1), destination: '33611110002' }),
    ]);
    expect(await d.sql(`SELECT destination FROM dispatch.pending_receipt WHERE provider_message_id = 'twin-1'`)).toEqual([{ destination: '33611110002' }]);
  });

  it('lists messages waiting for a receipt past their vendor limit to the super admin only', async () => {
    await routeTo(d, quietVendor, 'FR');
    const late = await d.accept({ destination: '+33612340020', iso2: 'FR' });
    const fresh = await d.accept({ destination: '+33612340021', iso2: 'FR' });
    await d.untilStatus(late, 'sent');
    await d.untilStatus(fresh, 'sent');
    // the quiet vendor allows 60 s for a receipt: one message is 2 minutes past its send
    await d.sql(`UPDATE dispatch.message SET sent_at = now() - interval '3 minutes' WHERE uuid = $1`, [late]);
    await d.sql(`UPDATE dispatch.message_awaiting w SET sent_at = now() - interval '3 minutes' FROM dispatch.message m WHERE m.id = w.message_id AND m.uuid = $1`, [late]);
    const res = await d.call<{ items: Array<{ uuid: string; vendorId: string; waitingSeconds: number }>; total: number; vendors: Array<{ vendorId: string; overdue: number; receiptOverdueMs: number }> }>(
      'GET',
      `/service_type_manager/awaiting_receipts?vendorId=${quietVendor}`,
      { token: d.adminToken() },
    );
    expect(res.status).toBe(200);
    const uuids = res.body.items.map((i) => i.uuid);
    expect(uuids).toContain(late);
    expect(uuids).not.toContain(fresh);
    expect(res.body.items.find((i) => i.uuid === late)).toMatchObject({ vendorId: quietVendor });
    expect(res.body.items.find((i) => i.uuid === late)!.waitingSeconds).toBeGreaterThanOrEqual(170);
    expect(res.body.vendors).toEqual([expect.objectContaining({ vendorId: quietVendor, overdue: res.body.total, receiptOverdueMs: 60_000 })]);
    // its receipt comes: no longer listed
    const [row] = await d.sql<{ provider_ids: string[] }>(`SELECT provider_ids FROM dispatch.message WHERE uuid = $1`, [late]);
    await d.dispatcher.receipt({ vendorId: quietVendor, providerMessageId: row.provider_ids[0], outcome: 'delivered', error: null, at: new Date() });
    await d.untilStatus(late, 'delivered');
    const after = await d.call<{ items: Array<{ uuid: string }> }>('GET', '/service_type_manager/awaiting_receipts', { token: d.adminToken() });
    expect(after.body.items.map((i) => i.uuid)).not.toContain(late);
    // an account member, even with every permission, is refused; a bad vendor id is a validation error
    expect((await d.call('GET', '/service_type_manager/awaiting_receipts', { token: d.memberToken('1', ['ROLE_ADMIN']) })).status).toBe(403);
    expect((await d.call('GET', '/service_type_manager/awaiting_receipts?vendorId=x', { token: d.adminToken() })).status).toBe(400);
  });
});

async function routeTo(d: DispatchTestApp, vendor: string, iso2: string): Promise<void> {
  const res = await d.call('PUT', '/service_type_manager/countries_mapping', { token: d.adminToken(), body: { iso2, serviceType: 'sms', vendorIds: [vendor] } });
  expect(res.status).toBe(200);
}
