import { MessageEdrV1, MessageRefundDueV1, MessageStatusChangedV1, MessageStatusesChangedV1 } from '@switchboard/contracts';
import type { OutgoingEvent } from '@switchboard/platform';
import type { EventRow } from '../repositories/message.repository';
import { compactLifecycleRows, compactLifecycleText, lifecycleBound, NotCompactable, unpackLifecycle } from './compact-events';
import { batchStatusChanges, lifecycleEvents, MessageTraces } from './events.service';

let n = 0;
const row = (over: Partial<EventRow> = {}): EventRow => {
  n++;
  return {
    id: String(100 + n),
    uuid: `2b1f3f5e-8a51-4c1e-9d6f-${String(n).padStart(12, '0')}`,
    account_id: '7',
    stream_id: '70',
    stream_uid: 'stream-70',
    campaign_id: '12',
    sender: 'ACME',
    destination: `+49151${String(1000000 + n)}`,
    status: 'sent',
    outgoing_status: 'sent',
    error: null,
    vendor_id: '3',
    provider_id: `p-${n}`,
    sent_at: `2026-11-29T10:00:0${n % 10}.${String(n % 1000).padStart(3, '0')}Z`,
    delivered_at: null,
    mcc: '262',
    mnc: '01',
    network: 'Telekom',
    body_length: 120,
    segments: 1,
    parts: 1,
    encoding: 'GSM7',
    price_micros: '6500',
    currency: 'EUR',
    possible_duplicate: false,
    ...over,
  };
};

/** What the relay does with a row: parse its text, unpack it. */
const relayed = (text: string): OutgoingEvent[] => unpackLifecycle(JSON.parse(text) as never);
/** The events' JSON with their topics: at or above what the bus sends of each. */
const bytesOf = (events: OutgoingEvent[]) => events.reduce((s, e) => s + Buffer.byteLength(JSON.stringify(e)), 0);

/** A carrier path's write batch: sent ones, final ones (EDR), refunds, read, traces, multi-part, odd carrier texts. */
function writeBatch(): OutgoingEvent[] {
  MessageTraces.remember(`2b1f3f5e-8a51-4c1e-9d6f-${String(n + 3).padStart(12, '0')}`, '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
  const sent = Array.from({ length: 40 }, (_, i) => row(i % 7 === 0 ? { parts: null, account_id: '8', stream_id: '80', campaign_id: null } : {}));
  const finals = Array.from({ length: 40 }, (_, i) =>
    row({
      status: i % 5 === 0 ? 'undelivered' : 'delivered',
      outgoing_status: i % 5 === 0 ? 'undelivered' : 'delivered',
      error: i % 5 === 0 ? `UNDELIV ${i} "quoted" \u0000 é 𝄞 ${'x'.repeat(i * 10)}` : null,
      delivered_at: i % 5 === 0 ? null : `2026-11-29T10:00:1${i % 10}.000Z`,
      parts: i % 9 === 0 ? 3 : 1,
      segments: i % 9 === 0 ? 3 : 1,
      possible_duplicate: i === 11,
      traceparent: i === 13 ? '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' : null,
      network: i % 4 === 0 ? null : 'Telekom',
    }),
  );
  const refunded = Array.from({ length: 5 }, () => row({ status: 'rejected', outgoing_status: 'failed', error: 'REJECTD', price_micros: '9000' }));
  const read = [row({ status: 'delivered', outgoing_status: 'read', delivered_at: '2026-11-29T10:00:20.000Z' })];
  return [
    ...lifecycleEvents(finals, { final: true }),
    ...lifecycleEvents(refunded, { final: true, refundReason: () => 'rejected' }),
    ...lifecycleEvents(sent, { final: false }),
    ...lifecycleEvents(read, { final: false }),
  ];
}

describe("dispatch's compact outbox rows (0217)", () => {
  it('rebuilds a write batch of status batches, EDRs and refunds exactly: members, order, values, ids', () => {
    const events = batchStatusChanges(writeBatch());
    expect(new Set(events.map((e) => e.type))).toEqual(new Set([MessageStatusesChangedV1.type, MessageEdrV1.type, MessageRefundDueV1.type]));
    const text = compactLifecycleText(events);
    const back = relayed(text);
    // the same JSON, member for member, in the same order
    expect(JSON.stringify(back)).toBe(JSON.stringify(events));
    expect(back).toEqual(events);
    // a trace on one item and one EDR, a multi-part count on some items only, an account on each item
    expect(JSON.stringify(back)).toContain('4bf92f3577b34da6a3ce929d0e0e4736');
    // smaller than the events' JSON by more than half
    expect(Buffer.byteLength(text)).toBeLessThan(Buffer.byteLength(JSON.stringify(events)) / 2);
  });

  it('rebuilds per-message status changes (status batches off) and a row of one event type', () => {
    const perMessage = writeBatch();
    expect(JSON.stringify(relayed(compactLifecycleText(perMessage)))).toBe(JSON.stringify(perMessage));
    const edrs = perMessage.filter((e) => e.type === MessageEdrV1.type);
    expect(JSON.stringify(relayed(compactLifecycleText(edrs)))).toBe(JSON.stringify(edrs));
    const statuses = perMessage.filter((e) => e.type === MessageStatusChangedV1.type);
    expect(JSON.stringify(relayed(compactLifecycleText(statuses)))).toBe(JSON.stringify(statuses));
  });

  it('bounds its events\' published bytes from above, so the relay never sizes a publish below what it sends', () => {
    for (const events of [batchStatusChanges(writeBatch()), writeBatch(), writeBatch().slice(0, 3)]) {
      const text = compactLifecycleText(events);
      const back = relayed(text);
      expect(lifecycleBound(Buffer.byteLength(text), back)).toBeGreaterThanOrEqual(bytesOf(back));
    }
    // events it did not make are measured
    const other = writeBatch().slice(0, 4);
    expect(lifecycleBound(10, other)).toBe(other.reduce((s, e) => s + Buffer.byteLength(JSON.stringify(e)), 0));
  });

  it('cuts a write batch over the publish cap into rows within it, in order, never inside a status batch (0220)', () => {
    const finals = Array.from({ length: 1200 }, (_, i) => row({ status: 'delivered', outgoing_status: 'delivered', delivered_at: '2026-11-29T10:00:02.000Z', error: i % 97 === 0 ? 'x'.repeat(2000) : null }));
    const events = batchStatusChanges([...lifecycleEvents(finals, { final: true }), ...lifecycleEvents(Array.from({ length: 1200 }, () => row()), { final: false })]);
    const cap = 900_000;
    // whole, the batch is bounded above the cap: the relay would serialise each of its events again to size them
    const whole = compactLifecycleText(events);
    expect(lifecycleBound(Buffer.byteLength(whole), relayed(whole))).toBeGreaterThan(2 * cap);
    const rows = compactLifecycleRows(events, cap);
    expect(rows.length).toBeGreaterThan(2);
    for (const r of rows) {
      const back = relayed(r.text);
      expect(lifecycleBound(Buffer.byteLength(r.text), back)).toBeLessThanOrEqual(cap);
      expect(JSON.stringify(back)).toBe(JSON.stringify(r.events));
    }
    // every event once, in order; a status batch whole in one row
    expect(JSON.stringify(rows.flatMap((r) => r.events))).toBe(JSON.stringify(events));
    expect(rows.flatMap((r) => r.events.filter((e) => e.type === MessageStatusesChangedV1.type))).toEqual(events.filter((e) => e.type === MessageStatusesChangedV1.type));
    // within the cap: one row, the same text as a whole row
    const small = events.slice(-5);
    expect(compactLifecycleRows(small, cap)).toEqual([{ events: small, text: compactLifecycleText(small) }]);
  });

  it('writes an event alone over the cap as a row of its own (the relay then measures it)', () => {
    const events = lifecycleEvents([row(), row({ status: 'undelivered', outgoing_status: 'undelivered', error: 'e'.repeat(5000) }), row()], { final: true });
    const rows = compactLifecycleRows(events, 4096);
    expect(JSON.stringify(rows.flatMap((r) => r.events))).toBe(JSON.stringify(events));
    const big = rows.find((r) => r.events.some((e) => JSON.stringify(e).includes('e'.repeat(5000))))!;
    expect(big.events).toHaveLength(1);
    for (const r of rows) if (r !== big) expect(lifecycleBound(Buffer.byteLength(r.text), relayed(r.text))).toBeLessThanOrEqual(4096);
  });

  it('refuses events whose members come in another order than an earlier event of their type (the writer then packs them whole)', () => {
    const [a, b] = lifecycleEvents([row(), row()], { final: false });
    const reordered = { ...b, data: { destination: (b.data as { destination: string }).destination, ...(b.data as object) } } as OutgoingEvent;
    expect(() => compactLifecycleText([a, reordered])).toThrow(NotCompactable);
    // a member only some events have is fine, wherever it comes
    const withExtra = { ...b, data: { ...(b.data as object), extra: 1 } } as OutgoingEvent;
    expect(JSON.stringify(relayed(compactLifecycleText([a, withExtra, a])))).toBe(JSON.stringify([a, withExtra, a]));
  });

  it('keeps values that look like its own form: empty objects, arrays, nulls, numbers and strings alike', () => {
    const [a, b, c] = lifecycleEvents([row(), row(), row()], { final: false });
    const odd = [
      { ...a, data: { ...(a.data as object), x: {}, y: [1, { z: 2 }], w: null } },
      { ...b, data: { ...(b.data as object), x: { k: 'v' }, y: '1', w: 0 } },
      { ...c, data: { ...(c.data as object), x: [], y: 1, w: false } },
    ] as OutgoingEvent[];
    expect(JSON.stringify(relayed(compactLifecycleText(odd)))).toBe(JSON.stringify(odd));
  });

  it('throws on a row it cannot read rather than publish something else', () => {
    expect(() => relayed('[]')).toThrow(/unknown form/);
    expect(() => relayed('{"v":2,"g":[]}')).toThrow(/unknown form/);
    const text = compactLifecycleText(batchStatusChanges(writeBatch()));
    const row = JSON.parse(text) as { i: { n: number } };
    row.i.n -= 1;
    expect(() => unpackLifecycle(row as never)).toThrow(/status items/);
  });
});
