import { randomUUID } from 'node:crypto';
import { flattenChargeBatches, MessageAcceptedV1, MessageChargedV1, MessageRefundDueV1, MessageStatusChangedV1, MessageStatusesChangedV1 } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import { acceptedEventId } from '../src/services/send.service';
import { phone, startStreams, TG_TOKEN_B, WA_BUSINESS_B, WA_PHONE_ID_B, WA_TOKEN_B, type Json, type StreamsTestApp } from './support';

/** The stream API: every error code of spec 8 that applies to it, charging, limits, idempotency, duplicates, ACLs. */
describe('stream API', () => {
  let a: StreamsTestApp;
  const ACC = '101';
  const OTHER = '202';
  let s: Json & { token: string };

  beforeAll(async () => {
    a = await startStreams();
    // 0.05 EUR a segment to the US; 100 EUR on the balance
    await a.account(ACC, { balance: 100_000_000, prices: { US: 50_000 } });
    await a.account(OTHER, { balance: 100_000_000 });
    s = await a.stream(ACC);
  });
  afterAll(async () => {
    await a?.close();
  });

  const ok = (text = `hello ${randomUUID()}`, n = 0) => ({ phone: phone(n), message: text });

  describe('accepting a send', () => {
    it('prices by country and segment, charges the balance, stores the message and its events before answering', async () => {
      const before = await a.balance(ACC);
      const long = 'x'.repeat(161); // two GSM-7 segments
      const res = await a.send(s.token, { phone: '1 (415) 555-2671', message: long });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ code: 'OK', status: 'accepted', destination: '+14155552671', country: 'US', sender: 'Acme', parts: 2, encoding: 'GSM7', price: 0.1, currency: 'EUR', stream_uid: s.streamUid });
      expect(await a.balance(ACC)).toBe(before - 100_000);
      const [row] = await a.sql(`SELECT status, price_micros::int AS price, segments FROM streams.message WHERE uuid = $1`, [res.body.message_uuid]);
      expect(row).toEqual({ status: 'accepted', price: 100_000, segments: 2 });
      // charges come in batches by default (docs/decisions/0178): read as the per-message events they stand for
      const events = flattenChargeBatches(await a.events());
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'streams.message.accepted',
          accountId: ACC,
          data: expect.objectContaining({ messageUuid: res.body.message_uuid, destination: '+14155552671', iso2: 'US', segments: 2, priceMicros: 100_000, currency: 'EUR', channel: 'sms', streamId: String(s.id) }),
        }),
      );
      // the send path builds its envelopes without zod: they must still match the contract
      for (const e of events.filter((x) => x.type === 'streams.message.accepted')) expect(() => MessageAcceptedV1.schema.parse(e.data)).not.toThrow();
      for (const e of events.filter((x) => x.type === 'streams.message.charged')) expect(() => MessageChargedV1.schema.parse(e.data)).not.toThrow();
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'streams.message.charged', data: expect.objectContaining({ messageUuid: res.body.message_uuid, amountMicros: 100_000, balanceAfterMicros: before - 100_000 }) }),
      );
    });

    it("gives a message of its own and its charge event time-ordered (v7) uuids, ascending in send order, and keeps the accepted event's id derived from the message (docs/decisions/0161)", async () => {
      const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
      const uuids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await a.send(s.token, ok(`ordered ${i} ${randomUUID()}`, 40 + i));
        expect(res.status).toBe(202);
        uuids.push(res.body.message_uuid as string);
      }
      expect(uuids.every((u) => V7.test(u))).toBe(true);
      expect([...uuids].sort()).toEqual(uuids);
      expect(new Set(uuids).size).toBe(3);
      const stored = await a.sql<{ uuid: string }>(`SELECT uuid::text FROM streams.message WHERE uuid = ANY($1::uuid[])`, [uuids]);
      expect(stored.map((r) => r.uuid).sort()).toEqual(uuids);
      const events = flattenChargeBatches(await a.events()).filter((e) => uuids.includes((e.data as { messageUuid?: string }).messageUuid ?? ''));
      const charged = events.filter((e) => e.type === MessageChargedV1.type);
      expect(charged).toHaveLength(3);
      expect(charged.every((e) => V7.test(e.id))).toBe(true);
      // a re-publish of the accepted event must be the same event (docs/decisions/0087): its id is a v5 of the message's
      const accepted = events.filter((e) => e.type === MessageAcceptedV1.type);
      expect(accepted.map((e) => e.id).sort()).toEqual(uuids.map((u) => acceptedEventId(u)).sort());
    });

    it('counts UCS-2 segments for text outside GSM-7', async () => {
      const res = await a.send(s.token, { phone: phone(1), message: 'Привет '.repeat(12) }); // 84 UCS-2 units: 2 parts
      expect(res.body).toMatchObject({ parts: 2, encoding: 'UCS2', price: 0.1 });
    });

    it('accepts the token with or without a Bearer prefix', async () => {
      expect((await a.send(`Bearer ${s.token}`, ok())).status).toBe(202);
    });
  });

  describe('authentication (0x11, 0x12, 0x13, 0x16)', () => {
    it('refuses a call without a token with 0x11', async () => {
      const res = await a.call('POST', '/streams/messages', { body: ok() });
      expect(res).toMatchObject({ status: 401, body: { code: '0x11' } });
    });

    it('refuses an unknown token with 0x12', async () => {
      const res = await a.send('sbs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', ok());
      expect(res).toMatchObject({ status: 401, body: { code: '0x12' } });
    });

    it('refuses a console access token on the stream API with 0x12', async () => {
      const res = await a.send(`Bearer ${a.member(ACC)}`, ok());
      expect(res).toMatchObject({ status: 401, body: { code: '0x12' } });
    });

    it('applies the IP ACL to the socket address and ignores X-Forwarded-For (0x13)', async () => {
      const fenced = await a.stream(ACC, { ipAcl: ['10.1.2.0/24', '2001:db8::/32'] });
      const res = await a.send(fenced.token, ok(), { 'x-forwarded-for': '10.1.2.3' });
      expect(res).toMatchObject({ status: 403, body: { code: '0x13' } });
      const open = await a.call('PUT', `/streams/${fenced.id}`, { token: a.member(ACC), body: { ipAcl: '127.0.0.1, 10.1.2.0/24' } });
      expect(open.status).toBe(200);
      expect((await a.send(fenced.token, ok())).status).toBe(202);
    });

    it('keeps an ACL that is switched off by check_ip_acl = 0 from applying', async () => {
      const fenced = await a.stream(ACC, { ipAcl: ['10.9.9.9'], params: { check_ip_acl: 0 } });
      expect((await a.send(fenced.token, ok())).status).toBe(202);
    });

    it('bans an address after repeated invalid tokens (0x16), even for a valid token', async () => {
      const b = await startStreams({ invalidTokenLimit: 3, banSeconds: 60 });
      try {
        await b.account(ACC, { balance: 1_000_000, prices: { US: 1 } });
        const st = await b.stream(ACC);
        for (let i = 0; i < 3; i++) expect((await b.send('sbs_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', ok())).body.code).toBe('0x12');
        expect(await b.send(st.token, ok())).toMatchObject({ status: 403, body: { code: '0x16' } });
        b.clock.advance(61_000);
        expect((await b.send(st.token, ok())).status).toBe(202);
      } finally {
        await b.close();
      }
    });

    it('honours X-Forwarded-For only from a configured trusted proxy', async () => {
      const b = await startStreams({}, 'loopback');
      try {
        await b.account(ACC, { balance: 1_000_000, prices: { US: 1 } });
        const fenced = await b.stream(ACC, { ipAcl: ['203.0.113.7'] });
        expect((await b.send(fenced.token, ok(), { 'x-forwarded-for': '203.0.113.7' })).status).toBe(202);
        expect((await b.send(fenced.token, ok(), { 'x-forwarded-for': '203.0.113.8' })).body.code).toBe('0x13');
      } finally {
        await b.close();
      }
    });
  });

  describe('validation (0x1, 0x17)', () => {
    it.each([
      ['no phone', { message: 'hi' }, 'phone'],
      ['an impossible phone', { phone: '+1415555', message: 'hi' }, 'phone'],
      ['no message', { phone: phone() }, 'message'],
      ['a text over the limit', { phone: phone(), message: 'x'.repeat(1531) }, 'message'],
      ['a sender ID over 11 characters', { phone: phone(), message: 'hi', sender: 'TwelveChars1' }, 'sender'],
      ['a numeric sender over 15 digits', { phone: phone(), message: 'hi', sender: '1234567890123456' }, 'sender'],
      ['a sender under 3 characters', { phone: phone(), message: 'hi', sender: 'AB' }, 'sender'],
      ['an unknown field', { phone: phone(), message: 'hi', priority: 1 }, 'priority'],
      ['a payload on an SMS stream', { phone: phone(), message: 'hi', payload: { template: 'x' } }, 'payload'],
    ])('refuses %s with 0x1 and a violation, charging nothing', async (_what, body, field) => {
      const before = await a.balance(ACC);
      const res = await a.send(s.token, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('0x1');
      expect(res.body.violations).toEqual(expect.arrayContaining([expect.objectContaining({ propertyPath: field })]));
      expect(await a.balance(ACC)).toBe(before);
    });

    it('refuses a body that is not JSON with 0x1', async () => {
      const res = await a.call('POST', '/streams/messages', { body: '{"phone":', headers: { authorization: s.token } });
      expect(res).toMatchObject({ status: 400, body: { code: '0x1' } });
    });

    it('refuses a message with a globally blocked keyword with 0x17', async () => {
      const kw = await a.call('POST', '/malicious_keywords/global', { token: a.superAdmin(), body: { word: 'freebitcoin', type: 1 } });
      expect(kw.status).toBe(201);
      const res = await a.send(s.token, { phone: phone(), message: 'Claim your FreeBitcoin now' });
      expect(res).toMatchObject({ status: 400, body: { code: '0x17' } });
      // a whole-word keyword does not match inside another word
      expect((await a.send(s.token, { phone: phone(), message: 'notfreebitcoins here' })).status).toBe(202);
      await a.call('DELETE', `/malicious_keywords/global/${kw.body.id}`, { token: a.superAdmin() });
      expect((await a.send(s.token, { phone: phone(), message: 'Claim your FreeBitcoin now' })).status).toBe(202);
    });

    it('refuses a destination country without a price with 0x17', async () => {
      const res = await a.send(s.token, { phone: '+4915112345678', message: 'hallo' });
      expect(res).toMatchObject({ status: 400, body: { code: '0x17' } });
      expect(res.body.message).toMatch(/DE/);
    });

    it('refuses an unapproved sender with 0x17 when the account validates senders', async () => {
      await a.account('303', { balance: 1_000_000, prices: { US: 10 }, customSettings: { streams_validate_senders: true } });
      const st = await a.stream('303', { sender: 'Pending1' });
      expect((await a.send(st.token, ok())).body.code).toBe('0x17');
      const created = await a.call('POST', '/senders', { token: a.member('303'), body: { name: 'Pending', value: 'Pending1' } });
      await a.call('PUT', `/senders/superadmin/${created.body.id}`, { token: a.superAdmin(), body: { approved: 1 } });
      expect((await a.send(st.token, ok())).status).toBe(202);
    });
  });

  describe('stream and account state (0x21, 0x22, 0x23)', () => {
    it('refuses a disabled stream, a stream with sending off and a restricted stream with 0x21', async () => {
      const st = await a.stream(ACC);
      const token = a.member(ACC);
      await a.call('PUT', `/streams/${st.id}`, { token, body: { status: -1 } });
      expect(await a.send(st.token, ok())).toMatchObject({ status: 403, body: { code: '0x21' } });
      await a.call('PUT', `/streams/${st.id}`, { token, body: { status: 0, enableSending: false } });
      expect((await a.send(st.token, ok())).body.code).toBe('0x21');
      await a.call('PUT', `/streams/${st.id}`, { token, body: { enableSending: true } });
      expect((await a.send(st.token, ok())).status).toBe(202);
      expect((await a.call('PUT', `/streams/${st.id}`, { token, body: { status: -10 } })).status).toBe(400);
      await a.call('PUT', `/streams/${st.id}`, { token: a.superAdmin(ACC), body: { status: -10 } });
      expect((await a.send(st.token, ok())).body.code).toBe('0x21');
    });

    it('refuses a draft stream with 0x22', async () => {
      const st = await a.stream(ACC, { status: 2 });
      expect(await a.send(st.token, ok())).toMatchObject({ status: 409, body: { code: '0x22' } });
    });

    it('refuses a WhatsApp stream without its provider settings with 0x23', async () => {
      const st = await a.stream(ACC, { streamType: 5, sender: null });
      expect(st.status).toBe(2);
      expect(await a.send(st.token, ok())).toMatchObject({ status: 409, body: { code: '0x23' } });
    });

    it('refuses sends of a disabled, restricted or unapproved account with 0x21', async () => {
      await a.account('404', { balance: 1_000_000, prices: { US: 10 } });
      const st = await a.stream('404');
      for (const change of [{ status: 'disable' as const }, { status: 'restrict' as const }, { status: 'active' as const, active: 0 }]) {
        await a.account('404', change);
        expect((await a.send(st.token, ok())).body.code).toBe('0x21');
      }
      await a.account('404', { status: 'active', active: 1 });
      expect((await a.send(st.token, ok())).status).toBe(202);
    });

    it('refuses a WhatsApp send when the account may no longer use WhatsApp (0x21)', async () => {
      await a.account('505', { balance: 1_000_000, prices: { US: 10 } });
      const st = await a.stream('505', { streamType: 5, sender: null, params: { auth_token: WA_TOKEN_B, business_id: WA_BUSINESS_B, phone_number: WA_PHONE_ID_B } });
      expect(st.status).toBe(0);
      const sent = await a.send(st.token, { phone: phone(), payload: { template: { name: 'order_update', language: { code: 'en_US' } } } });
      expect(sent.body).toMatchObject({ code: 'OK', sender: WA_PHONE_ID_B, parts: 1, encoding: null, price: 0.00001 });
      await a.account('505', { customSettings: { allow_whatsapp: false } });
      expect((await a.send(st.token, ok())).body.code).toBe('0x21');
    });

    it('stops accepting a deleted stream\'s token (0x12)', async () => {
      const st = await a.stream(ACC);
      await a.call('DELETE', `/streams/${st.id}`, { token: a.member(ACC) });
      expect((await a.send(st.token, ok())).body.code).toBe('0x12');
    });

    it('sends Telegram bot messages to a chat id without charging', async () => {
      await a.account('606', { balance: 0 });
      const st = await a.stream('606', { streamType: 7, sender: null, params: { auth_token: TG_TOKEN_B } });
      const res = await a.send(st.token, { phone: '-100123456', message: 'hi there' });
      expect(res.body).toMatchObject({ code: 'OK', destination: '-100123456', country: null, price: 0 });
    });
  });

  describe('duplicates (0x19) and idempotency keys', () => {
    it('refuses the same text to the same destination on the same stream within the window with 0x19, charging once', async () => {
      const body = ok('duplicate me');
      expect((await a.send(s.token, body)).status).toBe(202);
      const before = await a.balance(ACC);
      expect(await a.send(s.token, body)).toMatchObject({ status: 409, body: { code: '0x19' } });
      expect(await a.balance(ACC)).toBe(before);
      // another stream, another destination or another text is not a duplicate
      const other = await a.stream(ACC);
      expect((await a.send(other.token, body)).status).toBe(202);
      expect((await a.send(s.token, { ...body, phone: phone(5) })).status).toBe(202);
      // after the window (300 s) it goes again
      a.clock.advance(301_000);
      expect((await a.send(s.token, body)).status).toBe(202);
    });

    it('replays the first answer for a repeated Idempotency-Key without charging again', async () => {
      const key = `order-${randomUUID()}`;
      const body = ok();
      const first = await a.send(s.token, body, { 'idempotency-key': key });
      expect(first.status).toBe(202);
      const balance = await a.balance(ACC);
      const again = await a.send(s.token, body, { 'idempotency-key': key });
      expect(again.status).toBe(202);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await a.balance(ACC)).toBe(balance);
      const [{ n }] = await a.sql(`SELECT count(*)::int AS n FROM streams.message WHERE destination = $1 AND text = $2`, [body.phone, body.message]);
      expect(n).toBe(1);
    });

    it('replays one answer to concurrent requests with the same key', async () => {
      const key = `race-${randomUUID()}`;
      const body = ok();
      const answers = await Promise.all(Array.from({ length: 6 }, () => a.send(s.token, body, { 'idempotency-key': key })));
      expect(answers.map((r) => r.status)).toEqual(Array(6).fill(202));
      expect(new Set(answers.map((r) => r.body.message_uuid)).size).toBe(1);
    });

    it('refuses a key reused with another request (0x17, 422) and honours it for 24 hours only', async () => {
      const key = `k-${randomUUID()}`;
      const first = await a.send(s.token, ok('first'), { 'idempotency-key': key });
      expect((await a.send(s.token, ok('second'), { 'idempotency-key': key })).status).toBe(422);
      a.clock.advance(24 * 3600_000 + 1000);
      const later = await a.send(s.token, ok('first'), { 'idempotency-key': key });
      expect(later.status).toBe(202);
      expect(later.body.message_uuid).not.toBe(first.body.message_uuid);
    });

    it('keeps keys per stream', async () => {
      const other = await a.stream(ACC);
      const key = `shared-${randomUUID()}`;
      const one = await a.send(s.token, ok(), { 'idempotency-key': key });
      const two = await a.send(other.token, ok(), { 'idempotency-key': key });
      expect(one.body.message_uuid).not.toBe(two.body.message_uuid);
    });
  });

  describe('limits (0x30, 0x31, 0x41)', () => {
    it('holds the account to its TPS with a token bucket (0x31) that refills with time', async () => {
      await a.account('707', { tps: 3, balance: 1_000_000, prices: { US: 10 } });
      const st = await a.stream('707');
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await a.send(st.token, ok())).status);
      expect(codes).toEqual([202, 202, 202, 429]);
      expect((await a.send(st.token, ok())).body.code).toBe('0x31');
      a.clock.advance(1000);
      expect((await a.send(st.token, ok())).status).toBe(202);
    });

    it('holds a stream to its own TPS (0x31) without using the account\'s tokens', async () => {
      await a.account('708', { tps: 100, balance: 1_000_000, prices: { US: 10 } });
      const slow = await a.stream('708', { params: { tps: 1 } });
      const fast = await a.stream('708');
      expect((await a.send(slow.token, ok())).status).toBe(202);
      expect((await a.send(slow.token, ok())).body.code).toBe('0x31');
      expect((await a.send(fast.token, ok())).status).toBe(202);
    });

    it('refuses an account without a TPS with 0x30', async () => {
      await a.account('709', { tps: 0, balance: 1_000_000, prices: { US: 10 } });
      const st = await a.stream('709');
      expect(await a.send(st.token, ok())).toMatchObject({ status: 429, body: { code: '0x30' } });
    });

    it('holds the account to its daily limit (0x30) until the next UTC day', async () => {
      await a.account('710', { dailyLimit: 2, balance: 1_000_000, prices: { US: 10 } });
      const st = await a.stream('710');
      expect((await a.send(st.token, ok())).status).toBe(202);
      expect((await a.send(st.token, ok())).status).toBe(202);
      const before = await a.balance('710');
      const refused = await a.send(st.token, ok());
      expect(refused).toMatchObject({ status: 429, body: { code: '0x30' } });
      expect(await a.balance('710')).toBe(before);
      a.clock.advance(24 * 3600_000);
      expect((await a.send(st.token, ok())).status).toBe(202);
    });

    it('refuses a send the balance does not cover with 0x41 and debits nothing', async () => {
      await a.account('711', { balance: 120_000, prices: { US: 50_000 } });
      const st = await a.stream('711');
      expect((await a.send(st.token, ok())).status).toBe(202);
      expect((await a.send(st.token, ok())).status).toBe(202);
      const refused = await a.send(st.token, ok());
      expect(refused).toMatchObject({ status: 402, body: { code: '0x41' } });
      expect(await a.balance('711')).toBe(20_000);
      const [{ n }] = await a.sql(`SELECT count(*)::int AS n FROM streams.message WHERE account_id = 711`);
      expect(n).toBe(2);
    });

    it('accepts exactly as many concurrent sends as the balance pays for', async () => {
      await a.account('712', { balance: 7 * 50_000, prices: { US: 50_000 } });
      const st = await a.stream('712');
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => a.send(st.token, ok(`race ${i}`, i))));
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((x) => x === 202)).toHaveLength(7);
      expect(statuses.filter((x) => x === 402)).toHaveLength(23);
      expect(await a.balance('712')).toBe(0);
      const [{ n, total }] = await a.sql(`SELECT count(*)::int AS n, sum(price_micros)::int AS total FROM streams.message WHERE account_id = 712`);
      expect({ n, total }).toEqual({ n: 7, total: 350_000 });
    });
  });

  describe('isolation of the stream token', () => {
    it('sends as the token\'s own account only, with that account\'s prices and balance', async () => {
      await a.account(ACC, { ownPrices: { DE: 70_000 } });
      const theirs = await a.stream(OTHER);
      expect((await a.send(theirs.token, { ...ok(), account: ACC })).status).toBe(400);
      // ACC's own German price is not OTHER's
      expect((await a.send(theirs.token, { phone: '+4915112345678', message: 'hallo' })).body.code).toBe('0x17');
      const mine = await a.send(s.token, { phone: '+4915112345678', message: 'hallo' });
      expect(mine.body).toMatchObject({ code: 'OK', price: 0.07 });
      const before = { acc: await a.balance(ACC), other: await a.balance(OTHER) };
      const fr = await a.send(theirs.token, { phone: '+4915112345679', message: 'hallo' });
      expect(fr.body.code).toBe('0x17');
      await a.account(OTHER, { ownPrices: { DE: 20_000 } });
      const de = await a.send(theirs.token, { phone: '+4915112345679', message: 'hallo' });
      expect(de.body).toMatchObject({ code: 'OK', price: 0.02 });
      const [msg] = await a.sql(`SELECT account_id::text AS acc, stream_id::text AS stream FROM streams.message WHERE uuid = $1`, [de.body.message_uuid]);
      expect(msg).toEqual({ acc: OTHER, stream: String(theirs.id) });
      expect(await a.balance(OTHER)).toBe(before.other - 20_000);
      expect(await a.balance(ACC)).toBe(before.acc);
    });
  });

  describe('statuses and refunds from dispatch', () => {
    it('moves the message status forward only and shows it in message_status', async () => {
      const sent = await a.send(s.token, ok());
      const uuid = sent.body.message_uuid as string;
      const base = { messageUuid: uuid, accountId: ACC, streamId: String(s.id), streamUid: s.streamUid, campaignId: null, sender: 'Acme', destination: phone(), outgoingStatus: null, error: null, vendorId: '1', providerMessageId: 'p1', mcc: null, mnc: null };
      await a.publish(MessageStatusChangedV1, { ...base, status: 'delivered', sentAt: '2026-03-02T10:00:01.000Z', deliveredAt: '2026-03-02T10:00:02.000Z', occurredAt: '2026-03-02T10:00:02.000Z' });
      await a.publish(MessageStatusChangedV1, { ...base, status: 'sent', sentAt: '2026-03-02T10:00:01.000Z', deliveredAt: null, occurredAt: '2026-03-02T10:00:03.000Z' });
      const status = await a.call('GET', `/streams/message_status?message_uuid=${uuid}`, { token: a.member(ACC) });
      expect(status.body).toMatchObject({ message_uuid: uuid, status: 'delivered', delivered_at: '2026-03-02T10:00:02.000Z' });
    });

    it('takes a burst of statuses in one pass, out of order and repeated, and keeps each message at its furthest one', async () => {
      const uuids: string[] = [];
      for (let i = 0; i < 12; i++) uuids.push((await a.send(s.token, ok(undefined, i))).body.message_uuid as string);
      const base = { accountId: ACC, streamId: String(s.id), streamUid: s.streamUid, campaignId: null, sender: 'Acme', destination: phone(), error: null, vendorId: '1', providerMessageId: 'p', mcc: null, mnc: null };
      const status = (uuid: string, st: string, at: number) =>
        createEnvelope(
          MessageStatusChangedV1,
          {
            ...base,
            messageUuid: uuid,
            status: st as 'sent',
            outgoingStatus: st === 'sent' ? 'sent' : st === 'delivered' ? 'delivered' : 'undelivered',
            sentAt: st === 'sent' ? '2026-03-02T10:00:01.000Z' : null,
            deliveredAt: st === 'delivered' ? '2026-03-02T10:00:02.000Z' : null,
            occurredAt: new Date(Date.parse('2026-03-02T10:00:00.000Z') + at).toISOString(),
          },
          { accountId: ACC, source: 'dispatch' },
        );
      const events = uuids.flatMap((u, i) =>
        i % 3 === 0 ? [status(u, 'delivered', 2), status(u, 'sent', 1)] : i % 3 === 1 ? [status(u, 'sent', 1), status(u, 'undelivered', 2), status(u, 'sent', 3)] : [status(u, 'sent', 1)],
      );
      await a.publishAll([...events, ...events.slice(0, 5)]);

      const rows = await a.sql<{ uuid: string; status: string; sent_at: Date | null; delivered_at: Date | null }>(
        `SELECT uuid::text, status, sent_at, delivered_at FROM streams.message WHERE uuid = ANY($1::uuid[])`,
        [uuids],
      );
      const byUuid = new Map(rows.map((r) => [r.uuid, r]));
      uuids.forEach((u, i) => {
        const r = byUuid.get(u)!;
        expect([i, r.status]).toEqual([i, ['delivered', 'undelivered', 'sent'][i % 3]]);
        expect(r.sent_at?.toISOString()).toBe('2026-03-02T10:00:01.000Z');
        if (i % 3 === 0) expect(r.delivered_at?.toISOString()).toBe('2026-03-02T10:00:02.000Z');
      });
    });

    it("takes dispatch's batch of statuses (0173): each item moves only its own account's message, a redelivered batch changes nothing, and the per-message form still counts", async () => {
      const uuids: string[] = [];
      for (let i = 0; i < 3; i++) uuids.push((await a.send(s.token, ok(undefined, i))).body.message_uuid as string);
      const one = (uuid: string, st: 'sent' | 'delivered', acc = ACC) =>
        createEnvelope(
          MessageStatusChangedV1,
          {
            messageUuid: uuid, accountId: acc, streamId: String(s.id), streamUid: s.streamUid, campaignId: null, sender: 'Acme', destination: phone(), status: st, outgoingStatus: st, error: null, vendorId: '1', providerMessageId: 'p',
            sentAt: '2026-03-02T10:00:01.000Z', deliveredAt: st === 'delivered' ? '2026-03-02T10:00:02.000Z' : null, mcc: null, mnc: null, occurredAt: '2026-03-02T10:00:02.000Z',
          },
          { accountId: acc, source: 'dispatch' },
        );
      // the batch's envelope names this account: an item naming another is still that other account's (and moves nothing
      // here), nor does it hide the message's own status in the same batch
      const items = [one(uuids[0], 'delivered'), one(uuids[1], 'delivered', OTHER), one(uuids[2], 'delivered', OTHER), one(uuids[2], 'sent')];
      const batch = createEnvelope(MessageStatusesChangedV1, { items: items.map((e) => ({ id: e.id, data: e.data })) }, { accountId: ACC, source: 'dispatch' });
      const state = async () =>
        (await a.sql<{ uuid: string; status: string }>(`SELECT uuid::text, status FROM streams.message WHERE uuid = ANY($1::uuid[]) ORDER BY array_position($1::uuid[], uuid)`, [uuids])).map((r) => r.status);
      // idempotent by the forward-only move itself: no processed_events row per status
      const claims = async () => (await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM streams.processed_events WHERE event_id = ANY($1::uuid[])`, [items.map((e) => e.id)]))[0].n;
      await a.publishAll([batch]);
      expect(await state()).toEqual(['delivered', 'accepted', 'sent']);
      await a.publishAll([batch]);
      expect(await state()).toEqual(['delivered', 'accepted', 'sent']);
      expect(await claims()).toBe(0);
      await a.publishAll([one(uuids[2], 'delivered'), one(uuids[1], 'sent')]);
      expect(await state()).toEqual(['delivered', 'sent', 'delivered']);
    });

    it('refunds a message dispatch could not send once, however often the refund comes', async () => {
      const sent = await a.send(s.token, ok());
      const uuid = sent.body.message_uuid as string;
      const before = await a.balance(ACC);
      const refund = { messageUuid: uuid, accountId: ACC, amountMicros: 50_000, currency: 'EUR', reason: 'no_routes' };
      await a.publish(MessageRefundDueV1, refund);
      await a.publish(MessageRefundDueV1, refund);
      expect(await a.balance(ACC)).toBe(before + 50_000);
      // another account's refund for this message changes nothing
      const other = await a.balance(OTHER);
      await a.publish(MessageRefundDueV1, { ...refund, accountId: OTHER });
      expect(await a.balance(OTHER)).toBe(other);
      const events = await a.events();
      expect(events.filter((e) => e.type === 'streams.message.refunded' && (e.data as Json).messageUuid === uuid)).toHaveLength(1);
    });
  });

  describe('general errors (0x0)', () => {
    it('answers an unexpected failure with 0x0 and no internals', async () => {
      const b = await startStreams();
      try {
        await b.account(ACC, { balance: 1_000_000, prices: { US: 1 } });
        const st = await b.stream(ACC);
        await b.sql(`ALTER TABLE streams.message RENAME TO message_gone`);
        const res = await b.send(st.token, ok());
        expect(res.status).toBe(500);
        expect(res.body).toEqual({ code: '0x0', message: 'internal error', status: 500 });
        expect(await b.balance(ACC)).toBe(1_000_000);
      } finally {
        await b.close();
      }
    });
  });
});
