import { randomUUID } from 'node:crypto';
import {
  BlacklistChangedV1,
  CampaignSendBatchRequestedV1,
  ContactOptedOutV1,
  MessageAcceptedV1,
  MessagesChargedV1,
  chargeItemsOf,
  parseEventData,
  InboxSendRequestedV1,
  SendBatchProcessedV1,
  type EventData,
  type EventEnvelope,
  type SendBatch,
} from '@switchboard/contracts';
import { createEnvelope, type OutgoingEvent } from '@switchboard/platform';
import { SEND_BATCH_GROUP } from '../src/consumers/send-batches.consumer';
import { SendDatabase } from '../src/services/send-database';
import { acceptedEventId, SendService } from '../src/services/send.service';
import { phone, startStreams, type Json, type StreamsTestApp } from './support';

type Processed = EventData<typeof SendBatchProcessedV1>;

/**
 * Send batches from campaigns and inbox (libs/contracts/src/send-requests.ts): the stream API's path for every item,
 * one statement and one transaction per batch, exactly once by the requester's messageUuid, refusals a campaign can
 * halt on, answered through the outbox.
 */
describe('send batches from campaigns and inbox', () => {
  let a: StreamsTestApp;
  let statements: jest.SpyInstance;

  beforeAll(async () => {
    a = await startStreams();
    statements = jest.spyOn(a.t.app.get(SendDatabase), 'prepared');
  });
  afterAll(async () => {
    await a?.close();
  });

  async function setup(acc: string, o: Parameters<StreamsTestApp['account']>[1] = {}): Promise<string> {
    await a.account(acc, { prices: { US: 50_000 }, balance: 1_000_000, ...o });
    return String((await a.stream(acc)).id);
  }

  const item = (n: number, o: Partial<SendBatch['items'][number]> = {}): SendBatch['items'][number] => ({
    messageUuid: randomUUID(),
    destination: phone(n),
    text: `Hello ${n}`,
    sender: null,
    payload: null,
    notBefore: null,
    ref: `r${n}`,
    ...o,
  });

  const batch = (acc: string, streamId: string, items: SendBatch['items'], campaignId: string | null = '77'): SendBatch => ({ batchId: randomUUID(), accountId: acc, streamId, campaignId, items });

  /** Publishes the request as the campaigns (or inbox) service would and returns streams' answer to it. */
  async function request(b: SendBatch, o: { inbox?: boolean; envelopeAccount?: string } = {}): Promise<Processed> {
    const def = o.inbox ? InboxSendRequestedV1 : CampaignSendBatchRequestedV1;
    await a.publishAll([createEnvelope(def, b, { accountId: o.envelopeAccount ?? b.accountId, source: o.inbox ? 'inbox' : 'campaigns' })]);
    const answers = (await a.events()).filter((e) => e.type === SendBatchProcessedV1.type && (e.data as Processed).batchId === b.batchId);
    if (answers.length === 0) throw new Error(`no answer to batch ${b.batchId}`);
    return SendBatchProcessedV1.schema.parse(answers[answers.length - 1].data);
  }

  const outcomes = (p: Processed) => p.items.map((i) => (i.outcome === 'accepted' ? (i.duplicate ? 'duplicate' : 'accepted') : i.refusal));

  it('sends every item through the stream API path in one statement, with the campaign id, notBefore and the requester messageUuid', async () => {
    const streamId = await setup('8101');
    const notBefore = '2026-03-02T18:00:00.000Z';
    const items = [item(1), item(2, { notBefore }), item(3, { text: 'x'.repeat(161) })];
    statements.mockClear();
    const answer = await request(batch('8101', streamId, items));
    expect(statements).toHaveBeenCalledTimes(1);
    expect(answer).toMatchObject({ requester: 'campaigns', accountId: '8101', streamId, campaignId: '77' });
    expect(outcomes(answer)).toEqual(['accepted', 'accepted', 'accepted']);
    expect(answer.items.map((i) => [i.ref, i.messageUuid, i.priceMicros, i.segments])).toEqual([
      ['r1', items[0].messageUuid, 50_000, 1],
      ['r2', items[1].messageUuid, 50_000, 1],
      ['r3', items[2].messageUuid, 100_000, 2],
    ]);
    expect(await a.balance('8101')).toBe(1_000_000 - 200_000);
    const rows = await a.sql(`SELECT uuid::text, campaign_id::text, sender FROM streams.message WHERE account_id = 8101 ORDER BY destination`);
    expect(rows).toEqual(items.map((i) => ({ uuid: i.messageUuid, campaign_id: '77', sender: 'Acme' })));
    const accepted = (await a.events()).filter((e) => e.type === 'streams.message.accepted' && e.accountId === '8101').map((e) => e.data as Json);
    // events of different messages travel on different keys: their order of arrival is not the batch's
    const byUuid = (x: unknown[], y: unknown[]) => String(x[0]).localeCompare(String(y[0]));
    expect(accepted.map((d) => [d.messageUuid, d.campaignId, d.notBefore]).sort(byUuid)).toEqual(
      [
        [items[0].messageUuid, '77', null],
        [items[1].messageUuid, '77', notBefore],
        [items[2].messageUuid, '77', null],
      ].sort(byUuid),
    );
  });

  it("passes each item's campaign variant through onto its accepted event unchanged, and writes none for an item without one (docs/decisions/0205)", async () => {
    const streamId = await setup('8111');
    // an upper-case uuid takes the send's own heads, the others the batch's shared heads (docs/decisions/0167)
    const items = [item(1, { variantId: '5' }), item(2, { variantId: '6' }), item(3, { variantId: null }), item(4), item(5, { variantId: '7', messageUuid: randomUUID().toUpperCase() })];
    const answer = await request(batch('8111', streamId, items));
    expect(outcomes(answer)).toEqual(['accepted', 'accepted', 'accepted', 'accepted', 'accepted']);
    const accepted = (await a.events()).filter((e) => e.type === 'streams.message.accepted' && e.accountId === '8111').map((e) => e.data as Json);
    const variantOf = new Map(accepted.map((d) => [String(d.messageUuid).toLowerCase(), 'variantId' in d ? d.variantId : 'absent']));
    expect(items.map((i) => variantOf.get(i.messageUuid.toLowerCase()))).toEqual(['5', '6', 'absent', 'absent', '7']);
    // the contract reads it, by its hand-written check and by its schema alike
    for (const d of accepted) {
      expect(MessageAcceptedV1.schema.parse(d).variantId).toBe(parseEventData(MessageAcceptedV1, d).variantId);
      expect(parseEventData(MessageAcceptedV1, d).variantId).toBe('variantId' in d ? d.variantId : undefined);
    }
  });

  it('writes a campaign batch as one compact outbox row and publishes each message\'s events once, as the full form did (docs/decisions/0210)', async () => {
    const streamId = await setup('8121');
    const items = [item(1, { variantId: '5' }), item(2, { notBefore: '2026-03-02T18:00:00.000Z' }), item(3, { text: 'café "ü" \n ✓' }), item(4)];
    const answer = await request(batch('8121', streamId, items));
    expect(outcomes(answer)).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);
    const rows = await a.sql<{ type: string; key: string; packed: string }>(`SELECT type, key, packed FROM streams.outbox WHERE packed LIKE '%' || $1 || '%'`, [items[0].messageUuid]);
    expect(rows.map((r) => [r.type, r.key])).toEqual([['$streams.sends.compact', '8']]);
    // the row holds each send's own values once: well under the full form's ~1 KB a message
    expect(Buffer.byteLength(rows[0].packed) / items.length).toBeLessThan(500);
    const events = (await a.events()).filter((e) => e.accountId === '8121');
    const accepted = events.filter((e) => e.type === MessageAcceptedV1.type);
    expect(accepted.map((e) => e.id).sort()).toEqual(items.map((i) => acceptedEventId(i.messageUuid)).sort());
    for (const e of accepted) expect(MessageAcceptedV1.schema.parse(e.data)).toEqual(e.data);
    const data = new Map(accepted.map((e) => [(e.data as Json).messageUuid, e.data as Json]));
    expect(items.map((i) => [data.get(i.messageUuid)?.text, data.get(i.messageUuid)?.notBefore, data.get(i.messageUuid)?.variantId, data.get(i.messageUuid)?.priceMicros])).toEqual([
      ['Hello 1', null, '5', 50_000],
      ['Hello 2', '2026-03-02T18:00:00.000Z', undefined, 50_000],
      ['café "ü" \n ✓', null, undefined, 50_000],
      ['Hello 4', null, undefined, 50_000],
    ]);
    const charges = events.filter((e) => e.type === MessagesChargedV1.type).flatMap((e) => chargeItemsOf(e));
    expect(charges.map((c) => c.data.messageUuid)).toEqual(items.map((i) => i.messageUuid));
    expect(charges.map((c) => c.data.balanceAfterMicros)).toEqual([950_000, 900_000, 850_000, 800_000]);
    expect(await a.balance('8121')).toBe(800_000);
    // a batch whose uuid is not PostgreSQL's text of it keeps the full form (its events carry the stored uuid's text)
    const upper = [item(5), item(6, { messageUuid: randomUUID().toUpperCase() })];
    expect(outcomes(await request(batch('8121', streamId, upper)))).toEqual(['accepted', 'accepted']);
    const full = await a.sql<{ type: string }>(`SELECT type FROM streams.outbox WHERE packed LIKE '%' || $1 || '%'`, [upper[0].messageUuid]);
    expect(full.map((r) => r.type)).toEqual(['$streams.sends']);
  });

  it('answers a repeated batch with accepted + duplicate and charges nothing twice', async () => {
    const streamId = await setup('8102');
    const b = batch('8102', streamId, [item(1), item(2)]);
    expect(outcomes(await request(b))).toEqual(['accepted', 'accepted']);
    const again = await request({ ...b, batchId: randomUUID(), items: [...b.items, item(3)] });
    expect(outcomes(again)).toEqual(['duplicate', 'duplicate', 'accepted']);
    expect(again.items[0].priceMicros).toBe(50_000);
    expect(await a.balance('8102')).toBe(1_000_000 - 150_000);
    const [{ n }] = await a.sql(`SELECT count(*)::int AS n FROM streams.message WHERE account_id = 8102`);
    expect(n).toBe(3);
  });

  it('refuses for the balance item by item, so a campaign can halt on low_balance (0x41)', async () => {
    const streamId = await setup('8103', { balance: 100_000 });
    const answer = await request(batch('8103', streamId, [item(1), item(2), item(3)]));
    expect(outcomes(answer)).toEqual(['accepted', 'accepted', 'low_balance']);
    expect(answer.items[2].code).toBe('0x41');
    expect(await a.balance('8103')).toBe(0);
  });

  it('refuses past the daily limit with daily_limit', async () => {
    const streamId = await setup('8104', { dailyLimit: 2 });
    const answer = await request(batch('8104', streamId, [item(1), item(2), item(3)]));
    expect(outcomes(answer)).toEqual(['accepted', 'accepted', 'daily_limit']);
    expect(answer.items[2].code).toBe('0x30');
  });

  it('refuses past the account TPS with tps_reached, and every item of an account without TPS', async () => {
    const streamId = await setup('8105', { tps: 2 });
    const answer = await request(batch('8105', streamId, [item(1), item(2), item(3), item(4)]));
    expect(outcomes(answer)).toEqual(['accepted', 'accepted', 'tps_reached', 'tps_reached']);
    expect(answer.items[3].code).toBe('0x31');
    await a.account('8105', { tps: 0 });
    const none = await request(batch('8105', streamId, [item(5)]));
    expect(none.items[0]).toMatchObject({ outcome: 'refused', refusal: 'tps_reached', code: '0x30' });
  });

  it('refuses blacklisted and opted-out numbers, bad numbers and blocked senders, and sends the rest', async () => {
    const streamId = await setup('8106');
    await a.publish(BlacklistChangedV1, { accountId: '8106', added: [phone(1), phone(5)], removed: [], changedAt: '2026-03-02T09:00:00Z' });
    await a.publish(BlacklistChangedV1, { accountId: '8106', added: [], removed: [phone(5)], changedAt: '2026-03-02T09:01:00Z' });
    await a.publish(ContactOptedOutV1, { accountId: '8106', contactId: '1', phone: phone(2), optedOutAt: '2026-03-02T09:00:00Z', source: 'api' });
    // another account's blacklist does not block this one
    await a.publish(BlacklistChangedV1, { accountId: '8199', added: [phone(4)], removed: [], changedAt: '2026-03-02T09:00:00Z' });
    const answer = await request(batch('8106', streamId, [item(1), item(2), item(3, { destination: '12' }), item(4), item(5), item(6, { sender: '!!' })]));
    expect(outcomes(answer)).toEqual(['blacklisted', 'opted_out', 'invalid_destination', 'accepted', 'accepted', 'invalid_sender']);
    expect(answer.items[2].code).toBe('0x1');
  });

  it('refuses unapproved senders of an account that validates senders and texts with a blocked keyword, item by item', async () => {
    // each item checked against the account's approved senders and the keyword list (docs/decisions/0189)
    const streamId = await setup('8111', { customSettings: { streams_validate_senders: true } });
    const created = await a.call('POST', '/senders', { token: a.member('8111'), body: { name: 'Shop', value: 'ShopOK' } });
    await a.call('PUT', `/senders/superadmin/${created.body.id}`, { token: a.superAdmin(), body: { approved: 1 } });
    const word = await a.call('POST', '/malicious_keywords/global', { token: a.superAdmin(), body: { word: 'jackpotzz', type: 2 } });
    try {
      const answer = await request(
        batch('8111', streamId, [
          item(1, { sender: 'ShopOK' }),
          item(2, { sender: 'Unknown1' }),
          item(3, { sender: 'shopok', text: 'win the JACKPOTZZ now' }),
          item(4),
          item(5, { sender: 'ShopOK', text: 'Hello again' }),
        ]),
      );
      expect(outcomes(answer)).toEqual(['accepted', 'invalid_sender', 'blocked_keyword', 'invalid_sender', 'accepted']);
      expect(answer.items.map((i) => i.code)).toEqual([null, '0x17', '0x17', '0x17', null]);
    } finally {
      await a.call('DELETE', `/malicious_keywords/global/${word.body.id}`, { token: a.superAdmin() });
    }
  });

  it('refuses every item of a disabled account or a stream that is not the account’s, and writes nothing', async () => {
    const streamA = await setup('8107');
    const streamB = await setup('8108');
    const foreign = await request(batch('8107', streamB, [item(1)]));
    expect(foreign).toMatchObject({ accountId: '8107', streamId: streamB });
    expect(foreign.items[0]).toMatchObject({ outcome: 'refused', refusal: 'stream_disabled', code: '0x21' });
    await a.account('8107', { status: 'disable' });
    const disabled = await request(batch('8107', streamA, [item(2)]));
    expect(disabled.items[0]).toMatchObject({ outcome: 'refused', refusal: 'account_disabled', code: '0x21' });
    const [{ n }] = await a.sql(`SELECT count(*)::int AS n FROM streams.message WHERE account_id IN (8107, 8108)`);
    expect(n).toBe(0);
  });

  it('sends nothing for a batch whose envelope names another account', async () => {
    const streamId = await setup('8109');
    const b = batch('8109', streamId, [item(1)]);
    await a.publishAll([createEnvelope(CampaignSendBatchRequestedV1, b, { accountId: '8110', source: 'campaigns' })]);
    const answers = (await a.events()).filter((e) => e.type === SendBatchProcessedV1.type && (e.data as Processed).batchId === b.batchId);
    expect(answers).toHaveLength(0);
    const [{ n }] = await a.sql(`SELECT count(*)::int AS n FROM streams.message WHERE account_id = 8109`);
    expect(n).toBe(0);
  });

  it('dead-letters a malformed batch (not made by createEnvelope: from the wire) with the schema\'s own error, and sends nothing of it', async () => {
    const streamId = await setup('8113');
    const good = batch('8113', streamId, [item(1), item(2)]);
    // the envelope made of a good batch, then given an item the contract refuses (a text over 4,096 characters)
    const data = { ...good, items: [good.items[0], { ...good.items[1], text: 'x'.repeat(4097) }] };
    const event = { ...createEnvelope(CampaignSendBatchRequestedV1, good, { accountId: '8113', source: 'campaigns' }), data } as OutgoingEvent;
    await a.publishAll([event]);
    const [letter] = await a.sql<{ error: string; attempts: number }>(`SELECT error, attempts FROM streams.dead_letter WHERE group_name = $1 AND event_id = $2`, [SEND_BATCH_GROUP, event.id]);
    // the error is zod's, as before the hand-written check (docs/decisions/0192); retried, then given up
    const zod = CampaignSendBatchRequestedV1.schema.safeParse(data);
    expect(zod.success).toBe(false);
    expect(letter.error).toBe(`ZodError: ${zod.success ? '' : zod.error.message}`.slice(0, letter.error.length));
    expect(letter.error).toContain('4096');
    expect(letter.attempts).toBeGreaterThan(1);
    const answers = (await a.events()).filter((e) => e.type === SendBatchProcessedV1.type && (e.data as Processed).batchId === good.batchId);
    expect(answers).toHaveLength(0);
    const [{ n }] = await a.sql(`SELECT count(*)::int AS n FROM streams.message WHERE account_id = 8113`);
    expect(n).toBe(0);
  });

  it('answers inbox batches to inbox, without a campaign', async () => {
    const streamId = await setup('8111');
    const answer = await request(batch('8111', streamId, [item(1)], null), { inbox: true });
    expect(answer).toMatchObject({ requester: 'inbox', campaignId: null });
    expect(outcomes(answer)).toEqual(['accepted']);
  });

  it('retries a batch the database failed to write, and sends it exactly once', async () => {
    const streamId = await setup('8112');
    const sends = a.t.app.get(SendService);
    const outage = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const spy = jest.spyOn(sends, 'writeAll').mockRejectedValueOnce(outage);
    try {
      const b = batch('8112', streamId, [item(1), item(2)]);
      const answer = await request(b);
      expect(spy).toHaveBeenCalledTimes(2);
      expect(outcomes(answer)).toEqual(['accepted', 'accepted']);
      const processed = (await a.events()).filter((e: EventEnvelope) => e.type === SendBatchProcessedV1.type && (e.data as Processed).batchId === b.batchId);
      expect(processed).toHaveLength(1);
      expect(await a.balance('8112')).toBe(1_000_000 - 100_000);
    } finally {
      spy.mockRestore();
    }
  });
});
