import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { AcceptMessagesOnePass1798200000000 } from '../src/migrations/1798200000000-accept-messages-one-pass';
import { acceptMessagesDatabase } from './accept-messages-fixture';

/**
 * docs/decisions/0163: `accept_messages` reads its decisions in fewer passes. The same batch, holding every refusal,
 * two currencies, a price override, a send without events and one without a charged event, must give the same answers,
 * messages and outbox row with the new function as with the previous one (the migration's `down`).
 */
describe('accept_messages, one pass over the decisions', () => {
  const fx = acceptMessagesDatabase('acceptone');
  let c: Client;
  beforeAll(() => {
    c = fx.c;
  });
  const runner = fx.runner;

  const at = '2026-03-02T10:00:00.000Z';
  function send(i: number, account: number, iso2: string | null, o: Record<string, unknown> = {}): Record<string, unknown> {
    const uuid = randomUUID();
    const head = (type: string, cut: string) =>
      `{"id":"${randomUUID()}","type":"${type}","version":1,"occurredAt":"${at}","source":"streams","accountId":"${account}","traceId":null,"key":"${uuid}","topic":"switchboard.streams","data":{"messageUuid":"${uuid}","accountId":"${account}","text":"caf\\u00e9 \\"${i}\\"","${cut}":`;
    return {
      i, uuid, account_id: String(account), stream_id: String(account * 10), campaign_id: null, sender: 'SHOP', destination: `+4915110000${i}`, iso2,
      stored_text: `café "${i}"`, encoding: 'gsm7', segments: 1 + (i % 2), demo: false, price_override: null, fp: null, idem_key: null, idem_hash: null, idem_response: null,
      accepted: head('streams.message.accepted', 'priceMicros'), charged: head('streams.message.charged', 'amountMicros'), ...o,
    };
  }

  const batch = JSON.stringify([
    send(1, 1, 'DE'),
    send(2, 2, 'US'),
    send(3, 3, 'DE'), // no customer
    send(4, 2, 'FR'), // no price (no default)
    send(5, 1, 'DE', { fp: '\\xaa01' }),
    send(6, 1, 'DE', { fp: '\\xaa01' }), // duplicate
    send(7, 2, 'US'), // two segments: 140 000 with 70 000 spent of 120 000: payment required
    send(8, 1, 'DE', { idem_key: 'k1', idem_hash: '\\x01', idem_response: { code: 'OK' } }),
    send(9, 1, 'DE', { idem_key: 'k1', idem_hash: '\\x01', idem_response: { code: 'OK' } }), // key in use
    send(10, 1, 'FR', { price_override: 0 }), // free: no charged event
    send(11, 1, 'US', { accepted: null, charged: null }), // no events
    send(12, 4, 'DE'),
    send(13, 4, 'DE'),
    send(14, 4, 'DE'), // daily limit
    send(15, 1, 'US', { accepted: null }), // the charged event only
  ]);
  const outbox = `INSERT INTO streams.outbox (event_id, topic, key, type, payload, packed) VALUES (gen_random_uuid(), '', $1::text, 'packed', '{}', $2)`;

  async function accept(): Promise<unknown> {
    await c.query('BEGIN');
    try {
      const answers = (await c.query(`SELECT * FROM streams.accept_messages($1::json, $2, $3, 4, NULL, $2::timestamptz + interval '1 hour', 3600, $4)`, [batch, at, at.slice(0, 10), outbox])).rows;
      const packed = (await c.query(`SELECT key, packed FROM streams.outbox WHERE type = 'packed'`)).rows;
      const messages = (await c.query(`SELECT uuid, account_id, iso2, text, segments, price_micros, currency, status FROM streams.message ORDER BY destination`)).rows;
      const keys = (await c.query(`SELECT key, response FROM streams.idempotency_key ORDER BY key`)).rows;
      const balances = (await c.query(`SELECT account_id, sum(balance_micros)::text AS b FROM streams.balance_slot GROUP BY 1 ORDER BY 1`)).rows;
      const usage = (await c.query(`SELECT account_id, sum(count)::int AS n FROM streams.daily_usage GROUP BY 1 ORDER BY 1`)).rows;
      return { answers, packed, messages, keys, balances, usage };
    } finally {
      await c.query('ROLLBACK');
    }
  }

  it('answers, prices, refuses and writes the same events as the previous function', async () => {
    const now = (await accept()) as { answers: Array<{ result: string | null }>; packed: Array<{ key: string; packed: string }> };
    expect(now.answers.map((a) => a.result)).toEqual(['ok', 'ok', 'no_customer', 'no_price', 'ok', 'duplicate', 'payment_required', 'ok', 'key_in_use', 'ok', 'ok', 'ok', 'ok', 'daily_limit', 'ok']);
    const events = JSON.parse(now.packed[0].packed) as Array<{ type: string; data: Record<string, unknown> }>;
    expect(now.packed[0].key).toBe(String(events.length));
    expect(events.map((e) => `${e.type}:${String(e.data.currency)}`)).toEqual([
      ...['accepted:EUR', 'charged:EUR', 'accepted:USD', 'charged:USD', 'accepted:EUR', 'charged:EUR', 'accepted:EUR', 'charged:EUR', 'accepted:EUR'],
      ...['accepted:EUR', 'charged:EUR', 'accepted:EUR', 'charged:EUR', 'charged:EUR'],
    ].map((s) => `streams.message.${s}`));

    await new AcceptMessagesOnePass1798200000000().down(runner());
    try {
      expect(await accept()).toEqual(now);
    } finally {
      await new AcceptMessagesOnePass1798200000000().up(runner());
    }
    expect(await accept()).toEqual(now);
  });
});
