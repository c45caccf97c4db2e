import { getDataSourceToken } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { createEnvelope } from '@switchboard/platform';
import { CustomerUpdatedV1, InboundOptedInV1, InboundOptedOutV1, MessageReceivedV1, MessageRefundDueV1, Permission, StreamChannelConfiguredV1 } from '@switchboard/contracts';
import { SmppPeer } from '../src';
import { DISPATCH_CONNECTION } from '../src/dispatch.options';
import { ReadModelRepository } from '../src/repositories/read-model.repository';
import { InboundOwnership1796100000000 } from '../src/migrations/1796100000000-inbound-ownership';
import { WhatsAppPeer } from '../src/testing/whatsapp-peer';
import { sealFor, smppVendor, startDispatch, type DispatchTestApp } from './support';

/**
 * Inbound ownership and opt-out keywords (docs/decisions/0021): an inbound message reaches only the account that
 * owns its address, what nobody owns is kept aside for the super administrator, STOP and START change who may be
 * sent to, and provider secrets stay sealed in dispatch's read model.
 */
describe('inbound: ownership, held messages, STOP and START', () => {
  let smsc: SmppPeer;
  let wa: WhatsAppPeer;
  let d: DispatchTestApp;
  let waVendor: string;

  beforeAll(async () => {
    smsc = new SmppPeer();
    wa = new WhatsAppPeer('app-secret', new Set(['system-token']));
    const [port, waUrl] = [await smsc.listen(), await wa.listen()];
    d = await startDispatch({
      seedVendors: [
        smppVendor(port, { moRegion: 'DE' }),
        { name: 'WhatsApp Cloud', serviceType: 'whatsapp', adapter: 'whatsapp', config: { baseUrl: waUrl, apiVersion: 'v21.0', accessToken: 'system-token', appSecret: 'app-secret', verifyToken: 'verify-me' } },
      ],
    });
    await d.until(() => smsc.binds > 0);
    [{ id: waVendor }] = await d.sql<{ id: string }>(`SELECT id::text FROM dispatch.vendor WHERE adapter = 'whatsapp'`);
    // account 1 owns +49 30 111111 (its two-way stream 11) and the WhatsApp number 3333; account 2 has a stream
    // configured with account 1's number, which streams refused to claim for it
    await d.configureStream({ streamId: '11', accountId: '1', channel: 'sms', streamType: 4, sender: '+4930111111' });
    await d.configureStream({ streamId: '22', accountId: '2', channel: 'sms', streamType: 4, sender: '4930111111', claim: false });
    await d.configureStream({ streamId: '33', accountId: '1', channel: 'whatsapp', streamType: 5, sender: '3333' });
  });

  afterAll(async () => {
    await d.close();
    await smsc.close();
    await wa.close();
  });

  const inbound = (body: string) => d.sql<{ account_id: string; stream_id: string; contact_phone: string }>(`SELECT account_id::text, stream_id::text, contact_phone FROM dispatch.inbound_message WHERE body = $1`, [body]);
  const held = (body: string) => d.sql<{ address: string; reason: string }>(`SELECT address, reason FROM dispatch.inbound_unclaimed WHERE body = $1`, [body]);
  const waHook = () => `${d.t.url}/api/dispatch/webhooks/whatsapp/${waVendor}`;

  it("delivers a reply to the number's owner only, whichever account registered the number last and however it is written", async () => {
    smsc.sendMo('491700000001', '4930111111', 'reply to the owned number');
    await d.until(async () => (await inbound('reply to the owned number')).length === 1);
    expect(await inbound('reply to the owned number')).toEqual([{ account_id: '1', stream_id: '11', contact_phone: '+491700000001' }]);
  });

  it('gives each stored reply a time-ordered (v7) uuid, ascending in arrival order, carried by its event (docs/decisions/0161)', async () => {
    const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const uuids: string[] = [];
    for (let i = 0; i < 4; i++) {
      smsc.sendMo('491700000031', '4930111111', `ordered reply ${i}`);
      await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.inbound_message WHERE body = $1`, [`ordered reply ${i}`])).length === 1);
      const [r] = await d.sql<{ uuid: string }>(`SELECT uuid::text FROM dispatch.inbound_message WHERE body = $1`, [`ordered reply ${i}`]);
      uuids.push(r.uuid);
    }
    expect(uuids.every((u) => V7.test(u))).toBe(true);
    expect([...uuids].sort()).toEqual(uuids);
    await d.flushOutbox();
    const events = d.events(MessageReceivedV1.type).filter((e) => uuids.includes((e.data as { messageUuid: string }).messageUuid));
    expect(events).toHaveLength(4);
    expect(events.every((e) => V7.test(e.id))).toBe(true);
  });

  it("reads national-form numbers (TON 2) in the vendor's country", async () => {
    smsc.sendMo('01700000110', '030111111', 'a national reply', { source: 2, dest: 2 });
    await d.until(async () => (await inbound('a national reply')).length === 1);
    expect(await inbound('a national reply')).toEqual([{ account_id: '1', stream_id: '11', contact_phone: '+491700000110' }]);
    // held aside under the number it is, in E.164
    smsc.sendMo('01700000110', '030999998', 'a national reply to nobody', { source: 2, dest: 2 });
    await d.until(async () => (await held('a national reply to nobody')).length === 1);
    expect(await held('a national reply to nobody')).toEqual([{ address: '+4930999998', reason: 'unclaimed' }]);
  });

  it('keeps a reply to a number nobody owns aside for the super administrator, delivered to no account', async () => {
    // account 2 has a stream sending from this number, but no claim on it
    await d.configureStream({ streamId: '44', accountId: '2', channel: 'sms', streamType: 4, sender: '4930999999', claim: false });
    smsc.sendMo('491700000002', '4930999999', 'reply to nobody');
    await d.until(async () => (await held('reply to nobody')).length === 1);
    expect(await held('reply to nobody')).toEqual([{ address: '+4930999999', reason: 'unclaimed' }]);
    expect(await inbound('reply to nobody')).toEqual([]);
    await d.flushOutbox();
    expect(d.events(MessageReceivedV1.type).filter((e) => (e.data as { body: string }).body === 'reply to nobody')).toEqual([]);

    const list = await d.call<{ items: Array<Record<string, unknown>>; total: number }>('GET', '/dispatch/inbound_unclaimed?address=%2B4930999999', { token: d.adminToken() });
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([expect.objectContaining({ channel: 'sms', address: '+4930999999', source: '+491700000002', destination: '4930999999', message: 'reply to nobody', reason: 'unclaimed' })]);
    expect((await d.call('GET', '/dispatch/inbound_unclaimed', { token: d.memberToken('2', Object.values(Permission)) })).status).toBe(403);
    expect((await d.call('GET', '/dispatch/inbound_unclaimed')).status).toBe(401);
  });

  it('follows a released claim: the number is held again until its next owner claims it', async () => {
    await d.configureStream({ streamId: '55', accountId: '1', channel: 'sms', streamType: 4, sender: '4930555555' });
    await d.route('sms', '4930555555', null, null);
    smsc.sendMo('491700000003', '4930555555', 'after the release');
    await d.until(async () => (await held('after the release')).length === 1);
    await d.configureStream({ streamId: '56', accountId: '2', channel: 'sms', streamType: 4, sender: '+49 30 555555' });
    smsc.sendMo('491700000003', '4930555555', 'to the new owner');
    await d.until(async () => (await inbound('to the new owner')).length === 1);
    expect(await inbound('to the new owner')).toEqual([{ account_id: '2', stream_id: '56', contact_phone: '+491700000003' }]);
  });

  it('blocks a number that replied STOP over SMPP from that sender, sends to it again after START, and announces both', async () => {
    smsc.sendMo('491700000004', '4930111111', '  stop ');
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.opt_out WHERE phone = '+491700000004'`)).length === 1);
    expect(await d.sql(`SELECT account_id::text, sender, phone, keyword FROM dispatch.opt_out WHERE phone = '+491700000004'`)).toEqual([
      { account_id: '1', sender: '+4930111111', phone: '+491700000004', keyword: 'STOP' },
    ]);
    const list = await d.call<{ items: Array<Record<string, unknown>> }>('GET', '/message_responses?source=%2B491700000004', { token: d.memberToken('1', [Permission.MessageIncomingView]) });
    expect(list.body.items).toEqual([expect.objectContaining({ source: '+491700000004', destination: '4930111111', message: '  stop ' })]);
    await d.flushOutbox();
    const out = d.events(InboundOptedOutV1.type).map((e) => InboundOptedOutV1.schema.parse(e.data));
    expect(out).toEqual([expect.objectContaining({ accountId: '1', phone: '+491700000004', channel: 'sms', sender: '+4930111111', streamId: '11', keyword: 'STOP' })]);

    const blocked = await d.accept({ accountId: '1', streamId: '11', streamUid: 'stream-11', streamType: 4, sender: '4930111111', destination: '+491700000004', text: 'after STOP' });
    expect(await d.untilStatus(blocked, 'rejected')).toMatchObject({ error: 'the recipient opted out' });
    await d.flushOutbox();
    expect(d.events(MessageRefundDueV1.type).map((e) => e.data)).toContainEqual(expect.objectContaining({ messageUuid: blocked, reason: 'opted_out' }));
    expect(smsc.parts.some((p) => p.text === 'after STOP')).toBe(false);
    // another sender of the account still sends to the number
    const other = await d.accept({ accountId: '1', streamId: '10', sender: 'ACME', destination: '+491700000004', text: 'from another sender' });
    await d.untilStatus(other, ['sent', 'delivered']);

    smsc.sendMo('491700000004', '4930111111', 'START');
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.opt_out WHERE phone = '+491700000004'`)).length === 0);
    await d.flushOutbox();
    expect(d.events(InboundOptedInV1.type).map((e) => e.data)).toEqual([expect.objectContaining({ accountId: '1', phone: '+491700000004', sender: '+4930111111', keyword: 'START' })]);
    const again = await d.accept({ accountId: '1', streamId: '11', streamUid: 'stream-11', streamType: 4, sender: '4930111111', destination: '+491700000004', text: 'after START' });
    await d.untilStatus(again, ['sent', 'delivered']);
  });

  it("takes STOPALL for every sender of the account, Russian keywords and the account's own", async () => {
    await d.publish([
      createEnvelope(
        CustomerUpdatedV1,
        { accountId: '1', name: 'acc 1', shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 100, dailyLimit: null, customSettings: { opt_out_keywords: ['Хватит'] }, genSettings: {}, createdAt: new Date().toISOString() },
        { accountId: '1', source: 'accounts' },
      ),
    ]);
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.account_limit WHERE account_id = 1 AND opt_keywords->'optOut' ? 'Хватит'`)).length === 1);
    smsc.sendMo('491700000005', '4930111111', 'STOPALL');
    smsc.sendMo('491700000006', '4930111111', 'Стоп!');
    smsc.sendMo('491700000007', '4930111111', 'хватит');
    smsc.sendMo('491700000008', '4930111111', 'please stop sending');
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.opt_out WHERE phone IN ('+491700000005', '+491700000006', '+491700000007')`)).length === 3);
    expect(await d.sql(`SELECT sender, phone, keyword FROM dispatch.opt_out WHERE phone IN ('+491700000005', '+491700000006', '+491700000007', '+491700000008') ORDER BY phone`)).toEqual([
      { sender: '*', phone: '+491700000005', keyword: 'STOPALL' },
      { sender: '+4930111111', phone: '+491700000006', keyword: 'СТОП' },
      { sender: '+4930111111', phone: '+491700000007', keyword: 'ХВАТИТ' },
    ]);
    const anySender = await d.accept({ accountId: '1', streamId: '10', sender: 'ACME', destination: '+491700000005', text: 'after STOPALL' });
    expect(await d.untilStatus(anySender, 'rejected')).toMatchObject({ error: 'the recipient opted out' });
    // another account's sends to the number are not its business
    const otherAccount = await d.accept({ accountId: '2', streamId: '20', sender: 'ACME', destination: '+491700000005', text: 'from account 2' });
    await d.untilStatus(otherAccount, ['sent', 'delivered']);
  });

  it('blocks a WhatsApp contact that replied STOP and lets it back after START', async () => {
    const reply = (id: string, text: string) =>
      wa.deliver(waHook(), WhatsAppPeer.notification('3333', { contacts: [{ wa_id: '4917000009', profile: { name: 'Ada' } }], messages: [{ from: '4917000009', id, timestamp: '1700000000', type: 'text', text: { body: text } }] }));
    expect(await reply('wamid.stop-1', 'Stop')).toBe(200);
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.opt_out WHERE phone = '+4917000009'`)).length === 1);
    expect(await d.sql(`SELECT account_id::text, sender, keyword FROM dispatch.opt_out WHERE phone = '+4917000009'`)).toEqual([{ account_id: '1', sender: '3333', keyword: 'STOP' }]);
    const list = await d.call<{ items: Array<Record<string, unknown>> }>('GET', '/message_responses?source=%2B4917000009', { token: d.memberToken('1', [Permission.MessageIncomingView]) });
    expect(list.body.items).toEqual([expect.objectContaining({ channel: 'whatsapp', source: '+4917000009', destination: '3333', message: 'Stop' })]);
    const blocked = await d.accept({ accountId: '1', channel: 'whatsapp', streamId: '33', streamUid: 'stream-33', streamType: 5, sender: '3333', destination: '+4917000009', text: 'after WhatsApp STOP', encoding: null });
    expect(await d.untilStatus(blocked, 'rejected')).toMatchObject({ error: 'the recipient opted out' });
    expect(wa.sends.some((s) => (s.body.text as { body?: string } | undefined)?.body === 'after WhatsApp STOP')).toBe(false);
    await d.flushOutbox();
    expect(d.events(InboundOptedOutV1.type).map((e) => e.data)).toContainEqual(expect.objectContaining({ channel: 'whatsapp', phone: '+4917000009', sender: '3333' }));

    expect(await reply('wamid.start-1', 'START')).toBe(200);
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.opt_out WHERE phone = '+4917000009'`)).length === 0);
    const again = await d.accept({ accountId: '1', channel: 'whatsapp', streamId: '33', streamUid: 'stream-33', streamType: 5, sender: '3333', destination: '+4917000009', text: 'after WhatsApp START', encoding: null });
    await d.untilStatus(again, 'sent');
    await d.flushOutbox();
    expect(d.events(InboundOptedInV1.type).map((e) => e.data)).toContainEqual(expect.objectContaining({ channel: 'whatsapp', phone: '+4917000009', sender: '3333', keyword: 'START' }));
  });

  it('stores a burst of WhatsApp replies through the group commit each once, and a reply the database refuses fails only itself', async () => {
    const msg = (id: string, body: string) => ({ from: '4917000020', id, timestamp: '1700000000', type: 'text', text: { body } });
    const burst = Array.from({ length: 30 }, (_, i) => msg(`wamid.burst-${i}`, `burst ${i}`));
    // one payload: 30 replies, one of them twice, and one whose text PostgreSQL refuses (a NUL character)
    const payload = WhatsAppPeer.notification('3333', { contacts: [{ wa_id: '4917000020', profile: { name: 'Bo' } }], messages: [...burst.slice(0, 15), msg('wamid.burst-bad', 'bad \u0000 text'), burst[3], ...burst.slice(15)] });
    // and the same replies again at the same time, as a provider retrying does
    const [first, again] = await Promise.all([wa.deliver(waHook(), payload), wa.deliver(waHook(), WhatsAppPeer.notification('3333', { messages: burst.slice(0, 10) }))]);
    // the delivery with the refused reply is answered with an error (the provider sends it again); the other is not
    expect(first).not.toBe(200);
    expect(again).toBe(200);
    const stored = await d.sql<{ provider_message_id: string; n: number }>(`SELECT provider_message_id, count(*)::int AS n FROM dispatch.inbound_message WHERE contact_phone = '+4917000020' GROUP BY 1 ORDER BY 1`);
    expect(stored.map((r) => r.provider_message_id).sort()).toEqual(burst.map((m) => m.id).sort());
    expect(stored.every((r) => r.n === 1)).toBe(true);
    await d.flushOutbox();
    const events = d.events(MessageReceivedV1.type).map((e) => e.data as { body: string; contactPhone: string }).filter((e) => e.contactPhone === '+4917000020');
    expect(events.map((e) => e.body).sort()).toEqual(burst.map((m) => m.text.body).sort());
  });

  it('writes replies through one prepared group statement, planned at most five times per connection however many groups (docs/decisions/0101)', async () => {
    // one reply at a time: each is a group of its own, the usual group at a steady rate. 160 groups on dispatch's 12
    // connections: however the pool spreads them (other work takes connections too, more so on a loaded machine), some
    // connection runs the statement more than five times
    const REPLIES = 160;
    for (let i = 0; i < REPLIES; i++) {
      const answer = await wa.deliver(waHook(), WhatsAppPeer.notification('3333', { messages: [{ from: '4917000040', id: `wamid.one-${i}`, timestamp: '1700000000', type: 'text', text: { body: `one ${i}` } }] }));
      expect(answer).toBe(200);
    }
    const bodies = await d.sql<{ body: string }>(`SELECT body FROM dispatch.inbound_message WHERE contact_phone = '+4917000040' ORDER BY id`);
    expect(bodies.map((r) => r.body)).toEqual(Array.from({ length: REPLIES }, (_, i) => `one ${i}`));
    // the idle connections of dispatch's pool (checked out together), each asked what it holds prepared
    const pool = (d.t.app.get<DataSource>(getDataSourceToken(DISPATCH_CONNECTION)).driver as unknown as { master: Pool }).master;
    const clients = [];
    while (pool.idleCount > 0) clients.push(await pool.connect());
    const held: Array<{ generic: number; custom: number }> = [];
    try {
      for (const c of clients) {
        held.push(...(await c.query<{ generic: number; custom: number }>(`SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = 'dispatch_inbound_group'`)).rows);
      }
    } finally {
      clients.forEach((c) => c.release());
    }
    expect(held.some((h) => h.generic + h.custom > 5)).toBe(true);
    // planned five times at most; past that, the generic plan
    for (const h of held) expect([h.custom <= 5, h.generic + h.custom <= 5 || h.generic > 0]).toEqual([true, true]);
    expect(held.some((h) => h.generic > 0)).toBe(true);
  });

  it("looks up a burst's targets together and still gives each reply its own account, order and failure (docs/decisions/0068)", async () => {
    // account 2 owns the WhatsApp number 4444 (stream 44) beside account 1's 3333
    await d.configureStream({ streamId: '44', accountId: '2', channel: 'whatsapp', streamType: 5, sender: '4444' });
    const msgs = (tag: string, from: string) => Array.from({ length: 12 }, (_, i) => ({ from, id: `wamid.${tag}-${i}`, timestamp: '1700000000', type: 'text', text: { body: `${tag} ${i}` } }));
    const [toOne, toTwo, toNobody, toBad] = [msgs('mix-one', '4917000031'), msgs('mix-two', '4917000032'), msgs('mix-nobody', '4917000033'), msgs('mix-bad', '4917000034')];
    // delivered at once, so their lookups share batches: an address PostgreSQL refuses (a NUL character) among them
    const answers = await Promise.all([
      wa.deliver(waHook(), WhatsAppPeer.notification('3333', { messages: toOne })),
      wa.deliver(waHook(), WhatsAppPeer.notification('4444', { messages: toTwo })),
      wa.deliver(waHook(), WhatsAppPeer.notification('7777', { messages: toNobody })),
      wa.deliver(waHook(), WhatsAppPeer.notification('44\u000044', { messages: toBad })),
    ]);
    // the refused one is answered with an error (the provider sends it again), the others are taken
    expect(answers.slice(0, 3)).toEqual([200, 200, 200]);
    expect(answers[3]).not.toBe(200);
    const rows = (contact: string) =>
      d.sql<{ account_id: string; stream_id: string; body: string }>(`SELECT account_id::text, stream_id::text, body FROM dispatch.inbound_message WHERE contact_phone = $1 ORDER BY id`, [contact]);
    // each reply with its own address's owner, in the order the provider sent them
    expect(await rows('+4917000031')).toEqual(toOne.map((m) => ({ account_id: '1', stream_id: '33', body: m.text.body })));
    expect(await rows('+4917000032')).toEqual(toTwo.map((m) => ({ account_id: '2', stream_id: '44', body: m.text.body })));
    expect(await rows('+4917000033')).toEqual([]);
    expect(await rows('+4917000034')).toEqual([]);
    const heldAside = await d.sql<{ address: string; body: string }>(`SELECT address, body FROM dispatch.inbound_unclaimed WHERE contact_phone = '+4917000033' ORDER BY body`);
    expect(heldAside).toEqual(toNobody.map((m) => ({ address: '7777', body: m.text.body })).sort((a, b) => a.body.localeCompare(b.body)));
    // announced to their own accounts, in order
    await d.flushOutbox();
    const announced = (contact: string) => d.events(MessageReceivedV1.type).filter((e) => (e.data as { contactPhone: string }).contactPhone === contact);
    expect(announced('+4917000031').map((e) => [e.accountId, (e.data as { body: string }).body])).toEqual(toOne.map((m) => ['1', m.text.body]));
    expect(announced('+4917000032').map((e) => [e.accountId, (e.data as { body: string }).body])).toEqual(toTwo.map((m) => ['2', m.text.body]));
    expect(announced('+4917000034')).toEqual([]);
  });

  it('remembers a number’s owner between replies, yet writes each reply for the owner the tables name at that moment, in order (docs/decisions/0082)', async () => {
    await d.configureStream({ streamId: '61', accountId: '1', channel: 'sms', streamType: 4, sender: '4930616161' });
    const rows = () => d.sql<{ account_id: string; stream_id: string; body: string }>(`SELECT account_id::text, stream_id::text, body FROM dispatch.inbound_message WHERE contact_phone = '+491700000061' ORDER BY id`);
    const reads = jest.spyOn(d.t.app.get(ReadModelRepository), 'inboundTargets');
    try {
      smsc.sendMo('491700000061', '4930616161', 'hint 0');
      await d.until(async () => (await rows()).length === 1);
      const afterFirst = reads.mock.calls.length;
      // the number's owner is not read again for the replies that follow
      for (let i = 1; i <= 5; i++) smsc.sendMo('491700000061', '4930616161', `hint ${i}`);
      await d.until(async () => (await rows()).length === 6);
      expect(reads.mock.calls.length).toBe(afterFirst);
      // the claim moves to account 2: the remembered owner no longer holds, and not one reply goes to account 1
      await d.route('sms', '4930616161', null, null);
      await d.configureStream({ streamId: '62', accountId: '2', channel: 'sms', streamType: 4, sender: '4930616161' });
      for (let i = 6; i <= 15; i++) smsc.sendMo('491700000061', '4930616161', `hint ${i}`);
      await d.until(async () => (await rows()).length === 16);
      expect(await rows()).toEqual(Array.from({ length: 16 }, (_, i) => ({ account_id: i < 6 ? '1' : '2', stream_id: i < 6 ? '61' : '62', body: `hint ${i}` })));
      expect(reads.mock.calls.length).toBeGreaterThan(afterFirst);
      // announced to the owner of each, in the order sent
      await d.flushOutbox();
      const announced = d.events(MessageReceivedV1.type).filter((e) => (e.data as { contactPhone: string }).contactPhone === '+491700000061');
      expect(announced.map((e) => [e.accountId, (e.data as { streamId: string }).streamId, (e.data as { body: string }).body])).toEqual(
        Array.from({ length: 16 }, (_, i) => [i < 6 ? '1' : '2', i < 6 ? '61' : '62', `hint ${i}`]),
      );
    } finally {
      reads.mockRestore();
    }
  });

  it('keeps a WhatsApp reply to a phone number id nobody owns aside', async () => {
    const payload = WhatsAppPeer.notification('7777', { messages: [{ from: '4917000010', id: 'wamid.nobody', timestamp: '1700000000', type: 'text', text: { body: 'to an unowned WhatsApp number' } }] });
    expect(await wa.deliver(waHook(), payload)).toBe(200);
    expect(await held('to an unowned WhatsApp number')).toEqual([{ address: '7777', reason: 'unclaimed' }]);
    expect(await inbound('to an unowned WhatsApp number')).toEqual([]);
  });

  it('stores no provider secret in the clear, even from an event that carried one', async () => {
    // an event of the previous version, with the token in `credentials`
    await d.publish([
      createEnvelope(
        StreamChannelConfiguredV1,
        { accountId: '1', streamId: '70', streamUid: 'stream-70', streamType: 5, channel: 'whatsapp', sender: '7070', credentials: { accessToken: 'EAA-plain-old-token', businessId: '99' }, enabled: true, occurredAt: new Date().toISOString() },
        { accountId: '1', source: 'streams' },
      ),
    ]);
    await d.configureStream({ streamId: '71', streamUid: 'stream-71', channel: 'whatsapp', streamType: 5, sender: '7171', sealedCredentials: sealFor('stream-71', { accessToken: 'EAA-sealed-token' }) });
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.stream_channel WHERE stream_id = 70`)).length === 1);
    const dump = JSON.stringify(await d.sql(`SELECT * FROM dispatch.stream_channel`));
    expect(dump).not.toContain('EAA-plain-old-token');
    expect(dump).not.toContain('EAA-sealed-token');
    expect(await d.sql(`SELECT credentials FROM dispatch.stream_channel WHERE stream_id = 70`)).toEqual([{ credentials: { businessId: '99' } }]);
    // the sealed token is what the stream sends with
    wa.tokens.add('EAA-sealed-token');
    const uuid = await d.accept({ channel: 'whatsapp', streamId: '71', streamUid: 'stream-71', streamType: 5, sender: '7171', text: 'with the sealed token', encoding: null });
    await d.untilStatus(uuid, 'sent');
    expect(wa.sends.at(-1)).toMatchObject({ phoneNumberId: '7171', token: 'EAA-sealed-token' });
  });

  it('clears the provider secrets an older version stored in the clear when it migrates', async () => {
    const ds = d.t.app.get<DataSource>(getDataSourceToken(DISPATCH_CONNECTION));
    const qr = ds.createQueryRunner();
    try {
      const migration = new InboundOwnership1796100000000();
      await migration.down(qr);
      await qr.query(`UPDATE dispatch.stream_channel SET credentials = $2 WHERE stream_id = $1`, ['70', { accessToken: 'EAA-stored-before', verifyToken: 'verify-before', businessId: '99' }]);
      await qr.query(`UPDATE dispatch.stream_channel SET credentials = $2 WHERE stream_id = $1`, ['71', { botToken: '1:bot-token-before', phone: '+491701234567' }]);
      await migration.up(qr);
      expect(await qr.query(`SELECT stream_id::text, credentials FROM dispatch.stream_channel WHERE stream_id IN (70, 71) ORDER BY stream_id`)).toEqual([
        { stream_id: '70', credentials: { businessId: '99' } },
        { stream_id: '71', credentials: { phone: '+491701234567' } },
      ]);
    } finally {
      await qr.release();
    }
  });
});
