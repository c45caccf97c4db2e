import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { MessagesAcceptedV1, MessagesChargedV1 } from '@switchboard/contracts';
import { PACKED_OUTBOX_TYPE, timeOrderedUuid, type OutgoingEvent } from '@switchboard/platform';
import { AcceptMessagesCompact1798800000210 } from '../src/migrations/1798800000210-accept-messages-compact';
import { SEND_EVENTS_ACCEPTED_TYPE, SEND_EVENTS_ALL_TYPE, SEND_ROWS_BOUND, SEND_ROWS_UNPACK } from '../src/services/accept-batches';
import { SEND_EVENTS_TYPE } from '../src/services/charge-batches';
import { COMPACT_SENDS_TYPE, compactEventsText, compactGroup, type CompactGroup } from '../src/services/compact-sends';
import { acceptedMiddle, headPieces, type HeadTrace } from '../src/services/event-heads';
import { acceptMessagesDatabase } from './accept-messages-fixture';

/**
 * docs/decisions/0210: a batch written by `accept_messages_compact` (the sends' rows without heads, node's events text
 * stored as it is) gives the same answers, messages, keys, balances and usage as through 1798600000167's function, and
 * streams' relay builds from its compact row exactly the events JSON.parse gives of that function's packed text: the
 * same members in the same order with the same values, event for event, and the same folded events for every row
 * type. Every refusal, four accounts (one without a customer), two traces (one with a traceparent), a free send,
 * escapes and multi-byte texts, a payload, a variant and a not-before.
 */
describe('accept_messages_compact: the same decisions and the same events as the full packed text', () => {
  const fx = acceptMessagesDatabase('acceptcompact');
  let c: Client;
  beforeAll(() => {
    c = fx.c;
  });

  const at = '2026-03-02T10:00:00.000Z';
  const traces: Record<number, HeadTrace> = {
    1: { traceId: 'trace "1"', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    2: { traceId: null, traceparent: undefined },
    3: { traceId: 'trace 3', traceparent: undefined },
    4: { traceId: 'trace 4 \u00e9', traceparent: '' },
  };
  const stream = (account: number) => ({ id: String(account * 10), accountId: String(account), streamUid: `uid-${account} "ü" \\ ✓`, streamType: 1 });

  interface Send {
    row: Record<string, unknown>;
    account: number;
    aid: string;
    cid: string;
    uuid: string;
    middle: string;
  }

  function send(i: number, account: number, iso2: string | null, o: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Send {
    const s = stream(account);
    const uuid = timeOrderedUuid();
    const middle = {
      sender: 'SHOP',
      destination: `+4915110000${i}`,
      iso2,
      text: `café "${i}" \n\t\u0001 ✓ 😀 \\ </script>`,
      encoding: 'GSM7',
      segments: 1 + (i % 2),
      payload: null,
      campaignId: '7',
      notBefore: null,
      ...extra,
    };
    const row = {
      i, uuid, account_id: s.accountId, stream_id: s.id, campaign_id: '7', sender: 'SHOP', destination: middle.destination, iso2,
      stored_text: middle.text, encoding: 'GSM7', segments: middle.segments, demo: false, price_override: null, fp: null, idem_key: null, idem_hash: null, idem_response: null,
      ...o,
    };
    return { row, account, aid: randomUUID(), cid: timeOrderedUuid(), uuid, middle: acceptedMiddle(middle as never) };
  }

  const sends = [
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
    send(11, 4, 'DE', {}, { variantId: 'B', notBefore: '2026-03-02T11:00:00.000Z' }),
    send(12, 1, 'DE', {}, { payload: { template: { name: 'x "y"', components: [1, null, { a: 'ü' }] } } }),
    send(13, 4, 'DE'),
    send(14, 4, 'DE'), // daily limit
  ];
  const accounts = [1, 2, 3, 4];
  const pieces = Object.fromEntries(accounts.map((a) => [a, headPieces(stream(a), 'sms', at, traces[a])!]));
  const heads = JSON.stringify(accounts.map((a) => ({ h: a, ...pieces[a] })));
  const groups: CompactGroup[] = accounts.map((a) => compactGroup(stream(a), 'sms', traces[a], pieces[a]));
  const outbox = (type: string) => `INSERT INTO streams.outbox (event_id, topic, key, type, payload, packed) VALUES (gen_random_uuid(), '', $1::text, '${type}', '{}', $2)`;

  async function accept(compact: boolean, fold = PACKED_OUTBOX_TYPE): Promise<Record<string, unknown>> {
    await c.query('BEGIN');
    try {
      const tail = [at, at.slice(0, 10)];
      const answers = compact
        ? (
            await c.query(`SELECT * FROM streams.accept_messages_compact($1::json, $2::text, $3, $4, 4, NULL, $3::timestamptz + interval '1 hour', 3600, $5)`, [
              JSON.stringify(sends.map((s) => s.row)),
              compactEventsText(fold, at, groups, sends.map((s) => ({ g: accounts.indexOf(s.account), aid: s.aid, cid: s.cid, uuid: s.uuid, middle: s.middle }))),
              ...tail,
              outbox(COMPACT_SENDS_TYPE),
            ])
          ).rows
        : (
            await c.query(`SELECT * FROM streams.accept_messages($1::json, $2::json, $3, $4, 4, NULL, $3::timestamptz + interval '1 hour', 3600, $5)`, [
              JSON.stringify(sends.map((s) => ({ ...s.row, h: s.account, aid: s.aid, cid: s.cid, v: s.middle }))),
              heads,
              ...tail,
              outbox(fold),
            ])
          ).rows;
      const packed = (await c.query<{ key: string; type: string; packed: string }>(`SELECT key, type, packed FROM streams.outbox WHERE packed IS NOT NULL`)).rows;
      const messages = (await c.query(`SELECT uuid, account_id, campaign_id, iso2, text, segments, price_micros, currency, status FROM streams.message ORDER BY destination`)).rows;
      const keys = (await c.query(`SELECT key, response FROM streams.idempotency_key ORDER BY key`)).rows;
      const balances = (await c.query(`SELECT account_id, sum(balance_micros)::text AS b FROM streams.balance_slot GROUP BY 1 ORDER BY 1`)).rows;
      const usage = (await c.query(`SELECT account_id, sum(count)::int AS n FROM streams.daily_usage GROUP BY 1 ORDER BY 1`)).rows;
      const fingerprints = (await c.query(`SELECT stream_id, fp FROM streams.send_fingerprint ORDER BY 1, 2`)).rows;
      return { answers, packed, messages, keys, balances, usage, fingerprints };
    } finally {
      await c.query('ROLLBACK');
    }
  }

  /** The events streams' relay publishes of a packed row: its `unpack` of the row's parsed text, and its size bound. */
  function relayed(row: { type: string; packed: string }): { events: OutgoingEvent[]; bound: number | undefined } {
    const parsed = JSON.parse(row.packed) as OutgoingEvent[];
    const unpack = SEND_ROWS_UNPACK[row.type];
    const events = unpack ? unpack(parsed) : parsed;
    return { events, bound: SEND_ROWS_BOUND[row.type]?.(Buffer.byteLength(row.packed), events) };
  }
  const envelopeBytes = (events: OutgoingEvent[]) => events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify({ ...e, topic: undefined })), 0);

  it('decides and writes as the full form, and its row gives the same events, member for member', async () => {
    const full = await accept(false);
    const compact = await accept(true);
    expect((compact.answers as Array<{ result: string }>).map((a) => a.result)).toEqual(['ok', 'ok', 'no_customer', 'no_price', 'ok', 'duplicate', 'payment_required', 'ok', 'key_in_use', 'ok', 'ok', 'ok', 'ok', 'daily_limit']);
    const { packed: fullRows, ...fullRest } = full;
    const { packed: compactRows, ...compactRest } = compact;
    expect(compactRest).toEqual(fullRest);

    const [f] = fullRows as Array<{ key: string; type: string; packed: string }>;
    const [k] = compactRows as Array<{ key: string; type: string; packed: string }>;
    expect(k.type).toBe(COMPACT_SENDS_TYPE);
    expect(k.key).toBe(f.key); // the number of events the relay counts the row for
    const expected = relayed(f).events;
    const got = relayed(k).events;
    expect(expected).toHaveLength(Number(f.key));
    // the same text: members, their order and values (JSON.stringify writes them in the objects' order)
    expect(got.map((e) => JSON.stringify(e))).toEqual(expected.map((e) => JSON.stringify(e)));
    expect(got).toEqual(expected);
    expect(got.map((e) => e.type)).toEqual(['streams.message.accepted', 'streams.message.charged', 'streams.message.accepted', 'streams.message.charged', 'streams.message.accepted', 'streams.message.charged', 'streams.message.accepted', 'streams.message.charged', 'streams.message.accepted', 'streams.message.accepted', 'streams.message.charged', 'streams.message.accepted', 'streams.message.charged', 'streams.message.accepted', 'streams.message.charged']);
    // a byte for byte check of one event against the full text's element
    expect(JSON.stringify(got[0])).toBe(JSON.stringify((JSON.parse(f.packed) as unknown[])[0]));
    // its bytes: well under the full text's
    expect(Buffer.byteLength(k.packed)).toBeLessThan(Buffer.byteLength(f.packed));
  });

  it.each([SEND_EVENTS_TYPE, SEND_EVENTS_ACCEPTED_TYPE, SEND_EVENTS_ALL_TYPE, PACKED_OUTBOX_TYPE])('publishes the same folded events as a full %s row, within its size bound', async (fold) => {
    const [f] = (await accept(false, fold)).packed as Array<{ type: string; packed: string }>;
    const [k] = (await accept(true, fold)).packed as Array<{ type: string; packed: string }>;
    const expected = relayed(f);
    const got = relayed(k);
    expect(got.events.map((e) => JSON.stringify(e))).toEqual(expected.events.map((e) => JSON.stringify(e)));
    if (fold !== PACKED_OUTBOX_TYPE) expect(got.events.some((e) => e.type === MessagesAcceptedV1.type || e.type === MessagesChargedV1.type)).toBe(true);
    // the relay sizes its publish calls by the bound: never below what the events serialise to
    expect(got.bound).toBeGreaterThanOrEqual(envelopeBytes(got.events));
    expect(got.bound).toBeGreaterThanOrEqual(Buffer.byteLength(f.packed));
  });

  it('refuses a row it cannot read rather than publish something else', () => {
    const unpack = SEND_ROWS_UNPACK[COMPACT_SENDS_TYPE];
    expect(() => unpack([] as never)).toThrow(/not a compact row/);
    expect(() => unpack({ e: { f: '$nope', o: at, g: [], s: [] }, i: [], a: [], b: [], c: [] } as never)).toThrow(/unknown fold/);
    expect(() => unpack({ e: { f: PACKED_OUTBOX_TYPE, o: at, g: [], s: [] }, i: [1], a: [1], b: [1], c: ['EUR'] } as never)).toThrow(/no send 1/);
    // events that did not come from a compact row's unpack get no bound: the relay measures each
    expect(SEND_ROWS_BOUND[COMPACT_SENDS_TYPE](10, [])).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('is undone by down and leaves the previous functions alone', async () => {
    await new AcceptMessagesCompact1798800000210().down(fx.runner());
    try {
      await expect(c.query(`SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'accept_messages_compact'`)).resolves.toMatchObject({ rows: [{ n: 0 }] });
      await accept(false);
    } finally {
      await new AcceptMessagesCompact1798800000210().up(fx.runner());
    }
    const full = await accept(false);
    const compact = await accept(true);
    expect({ ...compact, packed: null }).toEqual({ ...full, packed: null });
  });
});
