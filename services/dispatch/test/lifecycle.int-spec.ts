import { randomUUID } from 'node:crypto';
import { MessageEdrV1, MessageRefundDueV1, MessageStatusChangedV1, MessageStatusesChangedV1 } from '@switchboard/contracts';
import { SmppPeer } from '../src';
import { smppVendor, startDispatch, type DispatchTestApp } from './support';

describe('message lifecycle through a local SMSC', () => {
  let peer: SmppPeer;
  let d: DispatchTestApp;

  beforeAll(async () => {
    peer = new SmppPeer({ rejectFor: new Set(['4900000001']) });
    const port = await peer.listen();
    // the per-message form, with the option explicitly off (an upgrade from before 0173); status-batches.int-spec covers the default
    d = await startDispatch({ seedVendors: [smppVendor(port)], statusBatches: false });
    await d.until(() => d.dispatcher.stats !== undefined && peer.binds > 0);
  });

  afterAll(async () => {
    await d.close();
    await peer.close();
  });

  it('takes an accepted message to sent and then delivered, with status and EDR events carrying the spec fields', async () => {
    const uuid = await d.accept({ text: 'Your code is 1234', priceMicros: 60_000 });
    const row = await d.untilStatus(uuid, 'delivered');
    expect(row).toMatchObject({ send_state: 'done', outgoing_status: 'delivered', parts: 1, possible_duplicate: false });
    expect(row.provider_ids).toEqual([peer.parts.find((p) => p.text === 'Your code is 1234')!.messageId]);
    await d.flushOutbox();
    const changes = d.events(MessageStatusChangedV1.type).filter((e) => (e.data as { messageUuid: string }).messageUuid === uuid);
    // sent is announced on its own unless the receipt committed together with the submit response
    expect([['sent', 'delivered'], ['delivered']]).toContainEqual(changes.map((e) => (e.data as { status: string }).status));
    for (const e of changes) MessageStatusChangedV1.schema.parse(e.data);
    expect(d.events(MessageStatusesChangedV1.type)).toEqual([]);
    const delivered = changes.at(-1)!.data as Record<string, unknown>;
    expect(delivered).toMatchObject({ streamUid: 'stream-10', sender: 'ACME', destination: '+4915112345678', status: 'delivered' });
    expect(delivered.sentAt).toEqual(expect.any(String));
    expect(delivered.deliveredAt).toEqual(expect.any(String));
    const edr = d.events(MessageEdrV1.type).find((e) => (e.data as { messageUuid: string }).messageUuid === uuid);
    expect(MessageEdrV1.schema.parse(edr!.data)).toMatchObject({ status: 'delivered', messageLength: 17, messagePartsCount: 1, utf8: false, costMicros: 60_000, rateMicros: 60_000, currency: 'EUR' });
  });

  it('follows a receipt for each part of a long message and is delivered only when all parts are', async () => {
    const text = 'Длинное сообщение '.repeat(9); // 162 UCS-2 units: 3 parts
    const uuid = await d.accept({ text, encoding: 'UCS2', segments: 3 });
    const row = await d.untilStatus(uuid, 'delivered');
    expect(row.parts).toBe(3);
    expect((row.provider_ids as string[]).length).toBe(3);
    const refs = await d.sql<{ outcome: string }>(`SELECT outcome FROM dispatch.provider_ref WHERE message_id = $1`, [row.id]);
    expect(refs.map((r) => r.outcome)).toEqual(['delivered', 'delivered', 'delivered']);
  });

  it('handles the same event twice and the same message uuid under another event id once', async () => {
    const uuid = randomUUID();
    const eventId = randomUUID();
    await d.accept({ messageUuid: uuid }, eventId);
    await d.accept({ messageUuid: uuid }, eventId);
    await d.accept({ messageUuid: uuid });
    await d.untilStatus(uuid, 'delivered');
    const rows = await d.sql(`SELECT id FROM dispatch.message WHERE uuid = $1`, [uuid]);
    expect(rows).toHaveLength(1);
    expect(peer.parts.filter((p) => p.destination === '4915112345678').length).toBeGreaterThan(0);
  });

  it('answers no_routes for a country without route and asks streams for a refund', async () => {
    // a telegram_private message with no vendor of that service type: no route at all
    const uuid = await d.accept({ channel: 'telegram_private', destination: '12345', iso2: null, priceMicros: 10_000 });
    await d.untilStatus(uuid, 'no_routes');
    await d.flushOutbox();
    const refund = d.events(MessageRefundDueV1.type).find((e) => (e.data as { messageUuid: string }).messageUuid === uuid);
    expect(refund?.data).toEqual({ messageUuid: uuid, accountId: '1', amountMicros: 10_000, currency: 'EUR', reason: 'no_routes' });
  });

  it('marks a message the SMSC refuses as rejected, with a refund', async () => {
    const rejected = await d.accept({ destination: '+4900000001', iso2: 'DE' });
    await d.untilStatus(rejected, 'rejected');
    await d.flushOutbox();
    expect(d.events(MessageRefundDueV1.type).some((e) => (e.data as { messageUuid: string }).messageUuid === rejected)).toBe(true);
  });
});
