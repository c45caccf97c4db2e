import { randomUUID } from 'node:crypto';
import { CHARGE_BATCH_MAX, chargesOf, flattenChargeBatches, MessageAcceptedV1, MessageChargedV1, MessagesChargedV1, type EventEnvelope } from '@switchboard/contracts';
import { timeOrderedUuid, type OutgoingEvent } from '@switchboard/platform';
import { batchCharges, CHARGE_BATCH_BYTES, sendEventsBytes } from './charge-batches';

const at = '2026-11-28T11:30:00.000Z';
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** A send's two events as `accept_messages` writes them into a send batch's row (after the relay's JSON.parse). */
function send(accountId: string, amountMicros: number, trace: { traceId: string | null; traceparent?: string } = { traceId: null }): OutgoingEvent[] {
  const messageUuid = randomUUID();
  const head = { occurredAt: at, source: 'streams', accountId, traceId: trace.traceId, ...(trace.traceparent ? { traceparent: trace.traceparent } : {}) };
  const accepted = { id: timeOrderedUuid(), type: MessageAcceptedV1.type, version: 1, ...head, key: messageUuid, topic: MessageAcceptedV1.topic, data: { messageUuid, accountId } };
  const charged = {
    id: timeOrderedUuid(),
    type: MessageChargedV1.type,
    version: 1,
    ...head,
    key: accountId,
    topic: MessageChargedV1.topic,
    data: { messageUuid, accountId, amountMicros, currency: 'EUR', balanceAfterMicros: 1_000_000 - amountMicros },
  };
  return [accepted, charged] as OutgoingEvent[];
}

/** The bus's copy of an event (what a consumer is handed). */
const wire = (e: OutgoingEvent): EventEnvelope => JSON.parse(JSON.stringify(e)) as EventEnvelope;

describe("a send batch's charges folded into one event per account (docs/decisions/0178)", () => {
  it('gives each account one batch of its charges, each item the per-message event it replaces; every other event keeps its place', () => {
    const events = [
      ...send('7', 50_000, { traceId: 'req-1', traceparent: TRACEPARENT }),
      ...send('8', 40_000),
      ...send('7', 50_000, { traceId: 'req-2' }),
      ...send('7', 0),
    ];
    const out = batchCharges(events);
    const charges = events.filter((e) => e.type === MessageChargedV1.type);
    // the accepted events first, in order; no per-message charge left
    expect(out.filter((e) => e.type === MessageAcceptedV1.type)).toEqual(events.filter((e) => e.type === MessageAcceptedV1.type));
    expect(out.slice(0, 4).every((e) => e.type === MessageAcceptedV1.type)).toBe(true);
    expect(out.some((e) => e.type === MessageChargedV1.type)).toBe(false);
    const batches = out.filter((e) => e.type === MessagesChargedV1.type);
    expect(batches.map((b) => [b.accountId, b.key, b.topic])).toEqual([
      ['7', '7', MessagesChargedV1.topic],
      ['8', '8', MessagesChargedV1.topic],
    ]);
    for (const b of batches) expect(() => MessagesChargedV1.schema.parse(wire(b).data)).not.toThrow();
    // read back through the contracts' reader: the per-message events, ids, traces, keys and data whole
    const back = batches.flatMap((b) => chargesOf(wire(b)));
    const byId = new Map(back.map((e) => [e.id, e]));
    expect(back).toHaveLength(charges.length);
    for (const c of charges) {
      const one = byId.get(c.id)!;
      expect(one).toMatchObject({ type: MessageChargedV1.type, version: 1, accountId: c.accountId, key: c.accountId, traceId: c.traceId, data: c.data });
      expect(one.traceparent).toBe(c.traceparent);
      expect(() => MessageChargedV1.schema.parse(one.data)).not.toThrow();
    }
  });

  it('is pure: the same row gives the same events with the same ids (a relay publishing it again after a crash)', () => {
    const events = Array.from({ length: 30 }, (_, i) => send(String(i % 3), 10_000 + i)).flat();
    const once = batchCharges(JSON.parse(JSON.stringify(events)) as OutgoingEvent[]);
    const again = batchCharges(JSON.parse(JSON.stringify(events)) as OutgoingEvent[]);
    expect(again).toEqual(once);
    const ids = once.filter((e) => e.type === MessagesChargedV1.type).map((e) => e.id);
    expect(new Set(ids).size).toBe(3);
  });

  it(`cuts an account's batch at ${CHARGE_BATCH_MAX} items, each charge once and in order`, () => {
    const events = Array.from({ length: 2 * CHARGE_BATCH_MAX + 7 }, (_, i) => send('9', 1_000 + i)).flat();
    const batches = batchCharges(events).filter((e) => e.type === MessagesChargedV1.type);
    expect(batches.map((b) => (b.data as { items: unknown[] }).items.length)).toEqual([CHARGE_BATCH_MAX, CHARGE_BATCH_MAX, 7]);
    expect(new Set(batches.map((b) => b.id)).size).toBe(3);
    const flat = flattenChargeBatches(batches.map(wire));
    expect(flat.map((e) => e.id)).toEqual(events.filter((e) => e.type === MessageChargedV1.type).map((e) => e.id));
  });

  it('cuts by estimated bytes too: long traces never make an event over the relay’s 1 MB', () => {
    const long = { traceId: `t${'\u0001"é'.repeat(400)}`, traceparent: `00-${'\\'.repeat(300)}` };
    const events = Array.from({ length: CHARGE_BATCH_MAX }, (_, i) => send('5', 100 + i, long)).flat();
    const batches = batchCharges(events).filter((e) => e.type === MessagesChargedV1.type);
    expect(batches.length).toBeGreaterThan(1);
    for (const b of batches) expect(Buffer.byteLength(JSON.stringify(b))).toBeLessThan(CHARGE_BATCH_BYTES);
    expect(flattenChargeBatches(batches.map(wire)).map((e) => e.id)).toEqual(events.filter((e) => e.type === MessageChargedV1.type).map((e) => e.id));
  });

  it("bounds a row's folded events by its text (the relay sizes its publish calls by it)", () => {
    for (const trace of [{ traceId: null }, { traceId: 'req-"1"', traceparent: TRACEPARENT }]) {
      const events = Array.from({ length: 700 }, (_, i) => send(String(i % 4), 1_000 + i, trace)).flat();
      const text = JSON.stringify(events);
      const out = batchCharges(JSON.parse(text) as OutgoingEvent[]);
      const serialised = out.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0);
      expect(sendEventsBytes(Buffer.byteLength(text), out)).toBeGreaterThanOrEqual(serialised);
    }
  });

  it('leaves a row without charges as it is (free sends)', () => {
    const events = send('7', 0).filter((e) => e.type === MessageAcceptedV1.type);
    expect(batchCharges(events)).toBe(events);
  });

  it('a batch of the wrong shape throws when read', () => {
    const [b] = batchCharges(send('7', 1)).filter((e) => e.type === MessagesChargedV1.type);
    expect(() => chargesOf({ ...wire(b), data: { items: [] } })).toThrow();
    expect(() => chargesOf({ ...wire(b), data: { items: [{ id: 'nope', data: {} }] } })).toThrow();
    expect(() => chargesOf({ ...wire(b), data: { items: Array.from({ length: CHARGE_BATCH_MAX + 1 }, () => ({ id: randomUUID(), data: {} })) } })).toThrow();
  });
});
