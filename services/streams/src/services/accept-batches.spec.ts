import { randomUUID } from 'node:crypto';
import { ACCEPT_BATCH_MAX, acceptedOf, flattenAcceptBatches, MessageAcceptedV1, MessageChargedV1, MessagesAcceptedV1, MessagesChargedV1, type EventEnvelope } from '@switchboard/contracts';
import { timeOrderedUuid, type OutgoingEvent } from '@switchboard/platform';
import { ACCEPT_BATCH_BYTES, batchAccepted, batchSends, SEND_EVENTS_ACCEPTED_TYPE, SEND_EVENTS_ALL_TYPE, SEND_ROWS_EVENT_BOUND, SEND_ROWS_UNPACK, sendRowType } from './accept-batches';
import { SEND_EVENTS_TYPE, sendEventsBytes } from './charge-batches';

const at = '2026-11-28T13:30:00.000Z';
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** A send's two events as `accept_messages` writes them into a send batch's row (after the relay's JSON.parse). */
function send(accountId: string, text = 'hello', trace: { traceId: string | null; traceparent?: string } = { traceId: null }, payload: Record<string, unknown> | null = null): OutgoingEvent[] {
  const messageUuid = randomUUID();
  const head = { occurredAt: at, source: 'streams', accountId, traceId: trace.traceId, ...(trace.traceparent ? { traceparent: trace.traceparent } : {}) };
  const data = {
    messageUuid,
    accountId,
    streamId: '12',
    streamUid: 'st-uid',
    streamType: 1,
    channel: 'sms',
    sender: 'Brand',
    destination: '+15550001111',
    iso2: 'US',
    text,
    encoding: 'GSM7',
    segments: 1,
    payload,
    campaignId: '44',
    notBefore: null,
    acceptedAt: at,
    priceMicros: 50_000,
    currency: 'EUR',
  };
  const accepted = { id: timeOrderedUuid(), type: MessageAcceptedV1.type, version: 1, ...head, key: messageUuid, topic: MessageAcceptedV1.topic, data };
  const charged = {
    id: timeOrderedUuid(),
    type: MessageChargedV1.type,
    version: 1,
    ...head,
    key: accountId,
    topic: MessageChargedV1.topic,
    data: { messageUuid, accountId, amountMicros: 50_000, currency: 'EUR', balanceAfterMicros: 1_000_000 },
  };
  return [accepted, charged] as OutgoingEvent[];
}

/** The bus's copy of an event (what a consumer is handed). */
const wire = (e: OutgoingEvent): EventEnvelope => JSON.parse(JSON.stringify(e)) as EventEnvelope;
const ofType = (events: OutgoingEvent[], type: string) => events.filter((e) => e.type === type);

describe("a send batch's accepted events folded into one event per account (docs/decisions/0181)", () => {
  it('gives each account one batch of its accepted events, each item the per-message event it replaces; the charges keep their form', () => {
    const events = [...send('7', 'a', { traceId: 'req-1', traceparent: TRACEPARENT }), ...send('8', 'b'), ...send('7', 'c', { traceId: 'req-2' })];
    const out = batchAccepted(events);
    expect(ofType(out, MessageAcceptedV1.type)).toEqual([]);
    expect(ofType(out, MessageChargedV1.type)).toEqual(ofType(events, MessageChargedV1.type));
    const batches = ofType(out, MessagesAcceptedV1.type);
    expect(batches.map((b) => [b.accountId, b.key, b.topic])).toEqual([
      ['7', '7', MessagesAcceptedV1.topic],
      ['8', '8', MessagesAcceptedV1.topic],
    ]);
    for (const b of batches) expect(() => MessagesAcceptedV1.schema.parse(wire(b).data)).not.toThrow();
    // read back through the contracts' reader: the per-message events, ids, traces, keys and data whole
    const back = batches.flatMap((b) => acceptedOf(wire(b)));
    const byId = new Map(back.map((e) => [e.id, e]));
    const accepted = ofType(events, MessageAcceptedV1.type);
    expect(back).toHaveLength(accepted.length);
    for (const a of accepted) {
      const one = byId.get(a.id)!;
      expect(one).toMatchObject({ type: MessageAcceptedV1.type, version: 1, accountId: a.accountId, key: a.key, traceId: a.traceId, data: a.data });
      expect(one.traceparent).toBe(a.traceparent);
      expect(() => MessageAcceptedV1.schema.parse(one.data)).not.toThrow();
    }
  });

  it('folds both with batchSends: per account its accepted batch, then the charge batches', () => {
    const events = [...send('7'), ...send('8'), ...send('7')];
    const out = batchSends(events);
    expect(out.map((e) => [e.type, e.accountId])).toEqual([
      [MessagesAcceptedV1.type, '7'],
      [MessagesAcceptedV1.type, '8'],
      [MessagesChargedV1.type, '7'],
      [MessagesChargedV1.type, '8'],
    ]);
  });

  it('is pure: the same row gives the same events with the same ids (a relay publishing it again after a crash)', () => {
    const events = Array.from({ length: 30 }, (_, i) => send(String(i % 3))).flat();
    const once = batchSends(JSON.parse(JSON.stringify(events)) as OutgoingEvent[]);
    const again = batchSends(JSON.parse(JSON.stringify(events)) as OutgoingEvent[]);
    expect(again).toEqual(once);
    expect(new Set(once.map((e) => e.id)).size).toBe(6);
  });

  it(`cuts an account's batch at ${ACCEPT_BATCH_MAX} items, each message once and in order`, () => {
    const events = Array.from({ length: 2 * ACCEPT_BATCH_MAX + 3 }, () => send('9')).flat();
    const batches = ofType(batchAccepted(events), MessagesAcceptedV1.type);
    expect(batches.map((b) => (b.data as { items: unknown[] }).items.length)).toEqual([ACCEPT_BATCH_MAX, ACCEPT_BATCH_MAX, 3]);
    expect(flattenAcceptBatches(batches.map(wire)).map((e) => e.id)).toEqual(ofType(events, MessageAcceptedV1.type).map((e) => e.id));
  });

  it('cuts by estimated bytes too: long texts, traces and payloads never make an event over the relay’s 1 MB', () => {
    const long = { traceId: `t${'\u0001"é'.repeat(100)}`, traceparent: TRACEPARENT };
    const events = Array.from({ length: ACCEPT_BATCH_MAX }, (_, i) => send('5', '\u0002"ж'.repeat(300), long, i % 2 ? { template: 'é'.repeat(500), n: i } : null)).flat();
    const batches = ofType(batchAccepted(events), MessagesAcceptedV1.type);
    expect(batches.length).toBeGreaterThan(1);
    for (const b of batches) expect(Buffer.byteLength(JSON.stringify(b))).toBeLessThan(ACCEPT_BATCH_BYTES);
    expect(flattenAcceptBatches(batches.map(wire)).map((e) => e.id)).toEqual(ofType(events, MessageAcceptedV1.type).map((e) => e.id));
  });

  it("bounds a row's folded events by its text (the relay sizes its publish calls by it)", () => {
    for (const trace of [{ traceId: null }, { traceId: 'req-"1"', traceparent: TRACEPARENT }]) {
      const events = Array.from({ length: 700 }, (_, i) => send(String(i % 4), `text ${i}`, trace)).flat();
      const text = JSON.stringify(events);
      const out = batchSends(JSON.parse(text) as OutgoingEvent[]);
      const serialised = out.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0);
      expect(sendEventsBytes(Buffer.byteLength(text), out)).toBeGreaterThanOrEqual(serialised);
    }
  });

  it('bounds each folded batch on its own, never below what it serialises to, awkward texts and traces too (the relay sizes a row over its cap by it, 0220)', () => {
    const long = { traceId: `t${'\u0001"é'.repeat(100)}`, traceparent: TRACEPARENT };
    for (const [trace, text] of [
      [{ traceId: null }, (i: number) => `text ${i}`],
      [long, () => '\u0002"ж\\'.repeat(300)],
    ] as const) {
      const events = Array.from({ length: 900 }, (_, i) => send(String(i % 3), text(i), trace, i % 5 ? null : { template: 'é"'.repeat(50), n: i })).flat();
      const out = batchSends(JSON.parse(JSON.stringify(events)) as OutgoingEvent[]);
      const batches = out.filter((e) => e.type === MessagesAcceptedV1.type || e.type === MessagesChargedV1.type);
      expect(batches.length).toBeGreaterThan(3);
      for (const type of [SEND_EVENTS_TYPE, SEND_EVENTS_ACCEPTED_TYPE, SEND_EVENTS_ALL_TYPE]) {
        for (const b of batches) expect(SEND_ROWS_EVENT_BOUND[type](b)).toBeGreaterThanOrEqual(Buffer.byteLength(JSON.stringify({ ...b, topic: undefined })));
      }
    }
    // an event no fold made has no bound: the relay measures it
    expect(SEND_ROWS_EVENT_BOUND[SEND_EVENTS_ALL_TYPE](send('1')[0])).toBeUndefined();
  });

  it('writes each combination of the options under its own row type, and the relay reads every one', () => {
    expect(sendRowType({ chargeBatches: false, acceptBatches: false })).toBeNull();
    expect(sendRowType({ chargeBatches: true, acceptBatches: false })).toBe(SEND_EVENTS_TYPE);
    expect(sendRowType({ chargeBatches: false, acceptBatches: true })).toBe(SEND_EVENTS_ACCEPTED_TYPE);
    expect(sendRowType({ chargeBatches: true, acceptBatches: true })).toBe(SEND_EVENTS_ALL_TYPE);
    const events = [...send('7'), ...send('7')];
    const types = (t: string) => SEND_ROWS_UNPACK[t](JSON.parse(JSON.stringify(events)) as OutgoingEvent[]).map((e) => e.type);
    expect(types(SEND_EVENTS_TYPE)).toEqual([MessageAcceptedV1.type, MessageAcceptedV1.type, MessagesChargedV1.type]);
    expect(types(SEND_EVENTS_ACCEPTED_TYPE)).toEqual([MessageChargedV1.type, MessageChargedV1.type, MessagesAcceptedV1.type]);
    expect(types(SEND_EVENTS_ALL_TYPE)).toEqual([MessagesAcceptedV1.type, MessagesChargedV1.type]);
  });

  it('a batch of the wrong shape throws when read', () => {
    const [b] = ofType(batchAccepted(send('7')), MessagesAcceptedV1.type);
    expect(() => acceptedOf({ ...wire(b), data: { items: [] } })).toThrow();
    expect(() => acceptedOf({ ...wire(b), data: { items: [{ id: 'nope', data: {} }] } })).toThrow();
    expect(() => acceptedOf({ ...wire(b), data: { items: Array.from({ length: ACCEPT_BATCH_MAX + 1 }, () => ({ id: randomUUID(), data: {} })) } })).toThrow();
  });
});
