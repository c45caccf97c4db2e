import { randomUUID } from 'node:crypto';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { InboxWsEvent, MessageStatusesChangedV1, SendBatchProcessedV1, StreamType } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import { INBOX_CONNECTION, ManualClock, RoomEvents } from '../src';
import { fakeStreams, INBOX_PERMISSIONS, memberEvent, received, startInbox, statusChanged, streamEvent, type InboxTestApp, type StreamsAnswer } from './support';

/**
 * The statuses of the inbox's sends taken a chunk at a time (docs/decisions/0180): dispatch's batch of status changes
 * mixing the inbox's sends, other requesters' messages, a campaign's and another account's, in one update.
 */
describe('inbox send statuses per chunk', () => {
  let app: InboxTestApp;
  let admin: string;
  const clock = new ManualClock(new Date('2026-11-20T08:00:00Z'));
  const answer: { fn: StreamsAnswer } = { fn: () => ({ outcome: 'accepted' }) };
  const streamUid = randomUUID();

  beforeAll(async () => {
    app = await startInbox({ clock, sendWaitMs: 2000 });
    await fakeStreams(app.bus, answer);
    admin = app.token('1', '100', INBOX_PERMISSIONS);
    await app.publish([memberEvent('1', '100'), streamEvent('1', '601', StreamType.TwoWay, { uid: streamUid })]);
    const space = (await app.call('POST', '/spaces', { body: { name: 'Support' }, token: admin })).body.id;
    await app.call('POST', '/incoming_routings', { body: { name: 'all', stream: streamUid, senders: [], space }, token: admin });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  const status = (accountId: string, uuid: string, s: 'sent' | 'delivered' | 'undelivered' | 'sent_failed', o: { read?: boolean; campaignId?: string } = {}) => {
    const e = statusChanged(accountId, uuid, s, o.read ? 'read' : null);
    return { id: e.id, data: { ...e.data, campaignId: o.campaignId ?? null } };
  };

  it('applies a chunk of statuses in one update: each send as applied in order, other messages and accounts untouched, one room event a send moved', async () => {
    const phone = '+4917600000777';
    await app.publish([received({ accountId: '1', streamId: '601', streamUid, streamType: StreamType.TwoWay, channel: 'sms', to: '+4915100000009', from: phone, body: 'hi' })]);
    const [conv] = await app.sql(`SELECT uuid::text FROM inbox.conversation WHERE contact_phone = $1`, [phone]);
    const sends: string[] = [];
    for (const text of ['one', 'two', 'three', 'four']) {
      const sent = await app.call('POST', `/inbox/simple_send/${conv.uuid}`, { body: { messages: [{ text }] }, token: admin });
      expect(sent.body.code).toBe('OK');
      sends.push(sent.body.message_uuid as string);
    }
    const [a, b, c, d] = sends;
    const others = Array.from({ length: 20 }, () => randomUUID());
    const rows = async () =>
      app.sql(`SELECT message_uuid::text, account_id::text, send_status, send_error, read_at IS NOT NULL AS read, send_outcome FROM inbox.event WHERE event_type = 'outgoing_message' ORDER BY id`);
    const before = await rows();
    expect(before.map((r) => r.send_status)).toEqual(['sending', 'sending', 'sending', 'sending']);
    const room = `conversation:${conv.uuid}`;
    const rooms = app.t.app.get(RoomEvents);
    const since = (await rooms.replay('1', room, null)).seq;

    // one batch as dispatch publishes it (its envelope names no account)
    const items = [
      status('2', a, 'sent_failed'), // another account's status for a's uuid, first and furthest: neither moves a nor hides a's own
      status('1', a, 'delivered'),
      status('1', a, 'sent'), // late: a stays delivered
      ...others.slice(0, 10).map((u) => status('1', u, 'delivered')), // messages the inbox did not send
      status('1', b, 'sent'),
      status('1', b, 'sent_failed'),
      status('1', b, 'delivered'), // after a final status: b stays failed with its error
      status('1', c, 'sent', { campaignId: '77' }), // a campaign's status is never the inbox's
      status('1', c, 'sent'),
      status('1', c, 'delivered', { read: true }),
      ...others.slice(10).map((u) => status('1', u, 'sent')),
      status('2', d, 'delivered'), // d: another account's only
    ];
    const ds = app.t.app.get<DataSource>(getDataSourceToken(INBOX_CONNECTION));
    const query = jest.spyOn(ds, 'query');
    try {
      await app.publish([createEnvelope(MessageStatusesChangedV1, { items }, { accountId: null, source: 'dispatch' })]);
      // one statement for the chunk's statuses, not one a status
      expect(query.mock.calls.filter(([sql]) => /UPDATE inbox\.event/.test(sql)).length).toBe(1);
    } finally {
      query.mockRestore();
    }

    const after = await rows();
    expect(after).toEqual([
      { message_uuid: a, account_id: '1', send_status: 'delivered', send_error: null, read: false, send_outcome: 'accepted' },
      { message_uuid: b, account_id: '1', send_status: 'failed', send_error: 'E-VENDOR', read: false, send_outcome: 'accepted' },
      { message_uuid: c, account_id: '1', send_status: 'read', send_error: null, read: true, send_outcome: 'accepted' },
      { message_uuid: d, account_id: '1', send_status: 'sending', send_error: null, read: false, send_outcome: 'accepted' },
    ]);
    // nothing stored for the other messages, nor for account 2
    expect((await app.sql(`SELECT count(*)::int AS n FROM inbox.event WHERE message_uuid = ANY($1::uuid[]) OR account_id = 2`, [others]))[0].n).toBe(0);

    // the conversation's room: one event for each send moved, as it was left
    const live = (await rooms.replay('1', room, since)).events;
    expect(live.map((e) => e.event)).toEqual([InboxWsEvent.DeliveryMessage, InboxWsEvent.DeliveryMessage, InboxWsEvent.MessageRead]);
    const payloads = live.map((e) => e.payload as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any -- room payloads are read field by field
    expect(payloads[0]).toMatchObject({ conversation_uuid: conv.uuid, message: { message_uuid: a, send_status: 'delivered' } });
    expect(payloads[1]).toMatchObject({ conversation_uuid: conv.uuid, message: { message_uuid: b, send_status: 'failed', send_error: 'E-VENDOR' } });
    expect(payloads[2]).toMatchObject({ conversation_uuid: conv.uuid, message_uuid: c });
    expect(typeof payloads[2].read_at).toBe('string');

    // the same batch again moves nothing and says nothing
    await app.publish([createEnvelope(MessageStatusesChangedV1, { items }, { accountId: null, source: 'dispatch' })]);
    expect(await rows()).toEqual(after);
    expect((await rooms.replay('1', room, since)).events).toHaveLength(3);
  });
  it("takes an answer's items together: refusals failed with their codes and outcomes, acceptances priced, in two statements", async () => {
    const phone = '+4917600000778';
    await app.publish([received({ accountId: '1', streamId: '601', streamUid, streamType: StreamType.TwoWay, channel: 'sms', to: '+4915100000009', from: phone, body: 'hi' })]);
    const [conv] = await app.sql(`SELECT uuid::text FROM inbox.conversation WHERE contact_phone = $1`, [phone]);
    // streams does not answer yet: each send answers "still sending" after its wait
    answer.fn = () => 'silent';
    const sent = await Promise.all(['one', 'two', 'three'].map((text) => app.call('POST', `/inbox/simple_send/${conv.uuid}`, { body: { messages: [{ text }] }, token: admin })));
    answer.fn = () => ({ outcome: 'accepted' });
    const [a, b, c] = sent.map((r) => r.body.message_uuid as string);
    const item = (messageUuid: string, o: { refusal?: string; code?: string }) =>
      o.refusal
        ? { ref: conv.uuid, messageUuid, outcome: 'refused' as const, refusal: o.refusal, code: o.code ?? null, priceMicros: null, currency: null, segments: null }
        : { ref: conv.uuid, messageUuid, outcome: 'accepted' as const, refusal: null, code: null, priceMicros: 70000, currency: 'EUR', segments: 1 };
    const late = createEnvelope(
      SendBatchProcessedV1,
      { batchId: 'inbox-late', requester: 'inbox', accountId: '1', streamId: '601', campaignId: null, items: [item(a, { refusal: 'blacklisted', code: '0x17' }), item(b, {}), item(c, { refusal: 'account_disabled', code: '0x21' })] },
      { source: 'streams', accountId: '1' },
    );
    const ds = app.t.app.get<DataSource>(getDataSourceToken(INBOX_CONNECTION));
    const query = jest.spyOn(ds, 'query');
    try {
      await app.publish([late]);
      expect(query.mock.calls.filter(([sql]) => /UPDATE inbox\.(event|conversation)/.test(sql)).length).toBe(2);
    } finally {
      query.mockRestore();
    }
    // in the order of a, b, c: the three sends were made concurrently, so their rows' ids may come in any order
    const rows = await app.sql(
      `SELECT message_uuid::text, send_status, send_error, send_outcome, price_micros::int AS price FROM inbox.event WHERE message_uuid = ANY($1::uuid[]) ORDER BY array_position($1::uuid[], message_uuid)`,
      [[a, b, c]],
    );
    expect(rows).toEqual([
      { message_uuid: a, send_status: 'failed', send_error: '0x17', send_outcome: 'refused', price: null },
      { message_uuid: b, send_status: 'sending', send_error: null, send_outcome: 'accepted', price: 70000 },
      { message_uuid: c, send_status: 'failedNotAuth', send_error: '0x21', send_outcome: 'not_authenticated', price: null },
    ]);
    // another account's answer naming these messages changes nothing
    await app.publish([createEnvelope(SendBatchProcessedV1, { ...late.data, batchId: 'inbox-other', accountId: '2', items: [item(b, { refusal: 'blacklisted', code: '0x99' })] }, { source: 'streams', accountId: '2' })]);
    expect((await app.sql(`SELECT send_status, send_outcome FROM inbox.event WHERE message_uuid = $1`, [b]))[0]).toEqual({ send_status: 'sending', send_outcome: 'accepted' });
  });
});
