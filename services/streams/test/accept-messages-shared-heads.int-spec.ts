import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { MessageAcceptedV1, MessageChargedV1 } from '@switchboard/contracts';
import { timeOrderedUuid } from '@switchboard/platform';
import { AcceptMessagesSharedHeads1798600000167 } from '../src/migrations/1798600000167-accept-messages-shared-heads';
import { acceptedMiddle, eventHead, headPieces, type HeadTrace } from '../src/services/event-heads';
import { acceptMessagesDatabase } from './accept-messages-fixture';

/**
 * docs/decisions/0167: a batch whose sends name a head group (the group's pieces sent once in `p_heads`) gives the same
 * answers, messages and packed outbox row, byte for byte, as the same batch with every send's heads in full, through
 * the 8-argument function the previous send path calls. Every refusal, two accounts (two groups), a free send, and a
 * send with its own heads in the same batch.
 */
describe('accept_messages, the events heads shared by a batch', () => {
  const fx = acceptMessagesDatabase('acceptheads');
  let c: Client;
  beforeAll(() => {
    c = fx.c;
  });
  const runner = fx.runner;

  const at = '2026-03-02T10:00:00.000Z';
  const trace: HeadTrace = { traceId: 'trace "1"', traceparent: undefined };
  const stream = (account: number) => ({ id: String(account * 10), accountId: String(account), streamUid: `uid-${account} "ü"`, streamType: 1 });

  /** One send in both forms: its heads in full, and its group's pieces around its own values. */
  function send(i: number, account: number, iso2: string | null, o: Record<string, unknown> = {}, own = false): { full: Record<string, unknown>; shared: Record<string, unknown> } {
    const s = stream(account);
    const uuid = timeOrderedUuid();
    const aid = randomUUID();
    const cid = timeOrderedUuid();
    const middle = { sender: 'SHOP', destination: `+4915110000${i}`, iso2, text: `café "${i}" \n ✓`, encoding: 'GSM7', segments: 1 + (i % 2), payload: null, campaignId: '7', notBefore: null };
    const data = { messageUuid: uuid, accountId: s.accountId, streamId: s.id, streamUid: s.streamUid, streamType: s.streamType, channel: 'sms', ...middle, acceptedAt: at };
    const row = {
      i, uuid, account_id: s.accountId, stream_id: s.id, campaign_id: '7', sender: 'SHOP', destination: middle.destination, iso2,
      stored_text: middle.text, encoding: 'GSM7', segments: middle.segments, demo: false, price_override: null, fp: null, idem_key: null, idem_hash: null, idem_response: null,
    };
    const heads = {
      accepted: eventHead(MessageAcceptedV1, aid, at, s.accountId, trace, data as never, 'priceMicros'),
      charged: eventHead(MessageChargedV1, cid, at, s.accountId, trace, { messageUuid: uuid, accountId: s.accountId }, 'amountMicros'),
    };
    const full = { ...row, ...heads, ...o };
    const shared = own ? full : { ...row, h: account, aid, cid, v: acceptedMiddle(middle), ...o };
    return { full, shared };
  }

  const sends = [
    send(1, 1, 'DE'),
    send(2, 2, 'US'),
    send(3, 3, 'DE'), // no customer (no group for account 3: its heads in full)
    send(4, 2, 'FR'), // no price (no default)
    send(5, 1, 'DE', { fp: '\\xaa01' }),
    send(6, 1, 'DE', { fp: '\\xaa01' }), // duplicate
    send(7, 2, 'US'), // two segments: 140 000 with 70 000 spent of 120 000: payment required
    send(8, 1, 'DE', { idem_key: 'k1', idem_hash: '\\x01', idem_response: { code: 'OK' } }),
    send(9, 1, 'DE', { idem_key: 'k1', idem_hash: '\\x01', idem_response: { code: 'OK' } }), // key in use
    send(10, 1, 'FR', { price_override: 0 }), // free: no charged event
    send(11, 4, 'DE'),
    send(12, 1, 'DE', {}, true), // its own heads, in a batch with groups
    send(13, 4, 'DE'),
    send(14, 4, 'DE'), // daily limit
  ];
  const heads = JSON.stringify([1, 2, 4].map((a) => ({ h: a, ...headPieces(stream(a), 'sms', at, trace) })));
  const outbox = `INSERT INTO streams.outbox (event_id, topic, key, type, payload, packed) VALUES (gen_random_uuid(), '', $1::text, 'packed', '{}', $2)`;

  async function accept(shared: boolean): Promise<Record<string, unknown>> {
    await c.query('BEGIN');
    try {
      const args = [at, at.slice(0, 10), outbox];
      const answers = shared
        ? (await c.query(`SELECT * FROM streams.accept_messages($1::json, $2::json, $3, $4, 4, NULL, $3::timestamptz + interval '1 hour', 3600, $5)`, [JSON.stringify(sends.map((s) => s.shared)), heads, ...args])).rows
        : (await c.query(`SELECT * FROM streams.accept_messages($1::json, $2, $3, 4, NULL, $2::timestamptz + interval '1 hour', 3600, $4)`, [JSON.stringify(sends.map((s) => s.full)), ...args])).rows;
      const packed = (await c.query(`SELECT key, packed FROM streams.outbox WHERE type = 'packed'`)).rows;
      const messages = (await c.query(`SELECT uuid, account_id, campaign_id, iso2, text, segments, price_micros, currency, status FROM streams.message ORDER BY destination`)).rows;
      const keys = (await c.query(`SELECT key, response FROM streams.idempotency_key ORDER BY key`)).rows;
      const balances = (await c.query(`SELECT account_id, sum(balance_micros)::text AS b FROM streams.balance_slot GROUP BY 1 ORDER BY 1`)).rows;
      const usage = (await c.query(`SELECT account_id, sum(count)::int AS n FROM streams.daily_usage GROUP BY 1 ORDER BY 1`)).rows;
      return { answers, packed, messages, keys, balances, usage };
    } finally {
      await c.query('ROLLBACK');
    }
  }

  it('answers, writes and packs the same events as the sends with their heads in full', async () => {
    const full = await accept(false);
    const shared = await accept(true);
    expect((shared.answers as Array<{ result: string }>).map((a) => a.result)).toEqual(['ok', 'ok', 'no_customer', 'no_price', 'ok', 'duplicate', 'payment_required', 'ok', 'key_in_use', 'ok', 'ok', 'ok', 'ok', 'daily_limit']);
    const packed = (shared.packed as Array<{ packed: string }>)[0].packed;
    const events = JSON.parse(packed) as Array<{ type: string; traceId: string; data: { text: string; streamUid?: string } }>;
    expect(events).toHaveLength(15);
    expect(events[0]).toMatchObject({ type: 'streams.message.accepted', traceId: 'trace "1"', data: { text: 'café "1" \n ✓', streamUid: 'uid-1 "ü"' } });
    expect(shared).toEqual(full);
  });

  it('refuses a batch whose send names a head group it was not given (no event is written without its head)', async () => {
    const rows = sends.map((x) => x.shared);
    const lost = JSON.stringify([...rows.slice(0, 1), { ...rows[1], h: 9 }]);
    await c.query('BEGIN');
    try {
      await expect(
        c.query(`SELECT * FROM streams.accept_messages($1::json, $2::json, $3, $4, 4, NULL, $3::timestamptz + interval '1 hour', 3600, $5)`, [lost, heads, at, at.slice(0, 10), outbox]),
      ).rejects.toThrow(/head group/);
    } finally {
      await c.query('ROLLBACK');
    }
  });

  it('leaves the previous function alone and is undone by down', async () => {
    await new AcceptMessagesSharedHeads1798600000167().down(runner());
    try {
      await expect(c.query(`SELECT count(*) FROM pg_proc WHERE proname = 'accept_messages'`)).resolves.toMatchObject({ rows: [{ count: '1' }] });
      await accept(false);
    } finally {
      await new AcceptMessagesSharedHeads1798600000167().up(runner());
    }
    expect(await accept(true)).toEqual(await accept(false));
  });
});
