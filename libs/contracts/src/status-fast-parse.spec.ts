import type { EventEnvelope } from './events';
import { MessageStatusChangedV1, MessageStatusesChangedV1, STATUS_BATCH_MAX } from './messaging-events';
import { fastStatusChanged, flattenStatusBatches, parseStatusChanged, safeParseStatusChanged, statusChangesOf } from './status-fast-parse';

/** A status change as dispatch publishes it (after the bus's JSON copy). */
const status = {
  messageUuid: '0b5f3c1e-8d2a-4f6b-9c7d-1e2f3a4b5c6d',
  accountId: '7',
  streamId: '12',
  streamUid: 'a0e1b2c3-d4e5-4f60-8a1b-2c3d4e5f6a7b',
  campaignId: '42',
  sender: 'ACME',
  destination: '+4915112345678',
  status: 'delivered',
  outgoingStatus: null,
  error: null,
  vendorId: '3',
  providerMessageId: 'p-991',
  sentAt: '2026-11-28T02:00:00.000Z',
  deliveredAt: '2026-11-28T02:00:03.000Z',
  mcc: '262',
  mnc: '01',
  occurredAt: '2026-11-28T02:00:03.000Z',
};

/** Each field of the contract given each kind of wrong value, an optional one holding undefined, extra keys. */
function variants(): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  const values: unknown[] = [undefined, null, '', 'x', '12', '-1', '1.5', 7, 0, -3, 1.5, true, {}, [], 'delivered', 'DELIVERED', '0B5F3C1E-8D2A-4F6B-9C7D-1E2F3A4B5C6D', '0b5f3c1e8d2a4f6b9c7d1e2f3a4b5c6d', 'GSM7'];
  for (const key of [...Object.keys(status), 'possibleDuplicate', 'parts', 'extra']) {
    for (const v of values) out.push([`${key} = ${JSON.stringify(v) ?? 'undefined'}`, { ...status, [key]: v }]);
    const { [key]: _gone, ...without } = status as Record<string, unknown>;
    out.push([`${key} missing`, without]);
  }
  out.push(['possibleDuplicate and parts', { ...status, possibleDuplicate: true, parts: 2 }]);
  out.push(['not an object', 'delivered'], ['null', null], ['an array', [status]]);
  return out;
}

describe('MessageStatusChangedV1 checked by hand (docs/decisions/0160)', () => {
  it.each(variants())('answers what the schema answers, or leaves it to the schema: %s', (_name, data) => {
    const schema = MessageStatusChangedV1.schema.safeParse(data);
    const fast = fastStatusChanged(data);
    // what it passes, the schema passes, with the same answer (keys, values, optional keys only when present)
    if (fast !== undefined) {
      expect(schema.success).toBe(true);
      expect(fast).toStrictEqual(schema.success ? schema.data : undefined);
      expect(Object.keys(fast)).toEqual(Object.keys(schema.success ? schema.data : {}));
    }
    // and it passes everything the schema passes but an optional key holding undefined (which JSON never carries)
    if (schema.success && !Object.values(data as object).includes(undefined)) expect(fast).toBeDefined();
    // parse and safeParse answer exactly as the schema's do, through either path
    if (schema.success) {
      expect(parseStatusChanged(data)).toStrictEqual(schema.data);
      expect(safeParseStatusChanged(data)).toStrictEqual({ success: true, data: schema.data });
    } else {
      expect(() => parseStatusChanged(data)).toThrow();
      expect(safeParseStatusChanged(data)).toEqual({ success: false });
    }
  });

  it('takes the hand-written path for the statuses dispatch publishes, and answers a new object without unknown keys', () => {
    const data = Object.freeze({ ...status, possibleDuplicate: false, parts: 1, extra: 'dropped' });
    const fast = fastStatusChanged(data);
    expect(fast).toBeDefined();
    expect(fast).not.toBe(data);
    expect(fast).not.toHaveProperty('extra');
    expect(fast).toStrictEqual(MessageStatusChangedV1.schema.parse(data));
    expect(fastStatusChanged({ ...status, campaignId: null, vendorId: null, status: 'sent' })).toStrictEqual(MessageStatusChangedV1.schema.parse({ ...status, campaignId: null, vendorId: null, status: 'sent' }));
  });
});

describe('a batch of status changes as its per-message events (docs/decisions/0173)', () => {
  const ids = ['0190b3a0-0000-7000-8000-000000000001', '0190b3a0-0000-7000-8000-000000000002'];
  const other = { ...status, messageUuid: '1b5f3c1e-8d2a-4f6b-9c7d-1e2f3a4b5c6d', accountId: '8', campaignId: null };
  const batch = (data: unknown, accountId: string | null = null): EventEnvelope =>
    ({ id: '0190b3a0-0000-7000-8000-0000000000ff', type: MessageStatusesChangedV1.type, version: 1, occurredAt: '2026-11-28T02:00:04.000Z', source: 'dispatch', accountId, traceId: null, key: status.messageUuid, data }) as EventEnvelope;

  it('gives each item as the event it stands for: its own id, account, key and trace, the data as sent', () => {
    const data = { items: [{ id: ids[0], traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', data: status }, { id: ids[1], data: other }] };
    expect(MessageStatusesChangedV1.schema.parse(data)).toEqual(data);
    // the batch's envelope naming an account is not taken for the items: each keeps its own
    const events = statusChangesOf(batch(data, '7'));
    expect(events).toEqual([
      { id: ids[0], type: MessageStatusChangedV1.type, version: 1, occurredAt: '2026-11-28T02:00:04.000Z', source: 'dispatch', accountId: '7', traceId: null, key: status.messageUuid, data: status, traceparent: data.items[0].traceparent },
      { id: ids[1], type: MessageStatusChangedV1.type, version: 1, occurredAt: '2026-11-28T02:00:04.000Z', source: 'dispatch', accountId: '8', traceId: null, key: other.messageUuid, data: other },
    ]);
    for (const e of events) expect(parseStatusChanged(e.data)).toEqual(e.data);
  });

  it('refuses a batch of the wrong shape with the schema error, and takes no item of it', () => {
    for (const data of [{}, { items: [] }, { items: [{ id: 'x', data: status }] }, { items: [{ id: ids[0] }] }, { items: Array.from({ length: STATUS_BATCH_MAX + 1 }, () => ({ id: ids[0], data: status })) }, null]) {
      expect(() => statusChangesOf(batch(data))).toThrow();
    }
  });

  it('replaces only the batches of a chunk, in place, and leaves a chunk without one as it is', () => {
    const single = { ...batch(status), type: MessageStatusChangedV1.type, id: ids[0] } as EventEnvelope;
    const chunk = [single];
    expect(flattenStatusBatches(chunk)).toBe(chunk);
    const flat = flattenStatusBatches([single, batch({ items: [{ id: ids[1], data: other }] }), single]);
    expect(flat.map((e) => [e.type, e.id, e.accountId])).toEqual([
      [MessageStatusChangedV1.type, ids[0], null],
      [MessageStatusChangedV1.type, ids[1], '8'],
      [MessageStatusChangedV1.type, ids[0], null],
    ]);
    // with a filter, a batch's other items become no event; a per-message event is never filtered
    const kept = flattenStatusBatches([single, batch({ items: [{ id: ids[0], data: status }, { id: ids[1], data: other }] })], (d) => (d as { accountId: string }).accountId === '8');
    expect(kept.map((e) => [e.id, e.accountId])).toEqual([
      [ids[0], null],
      [ids[1], '8'],
    ]);
  });
});
