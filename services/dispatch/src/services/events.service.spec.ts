import { MessageEdrV1, MessageRefundDueV1, MessageStatusChangedV1, MessageStatusesChangedV1, STATUS_BATCH_MAX, statusChangesOf, Topics } from '@switchboard/contracts';
import type { EventRow } from '../repositories/message.repository';
import { batchStatusChanges, lifecycleEvents, MessageTraces, STATUS_BATCH_BYTES } from './events.service';

const row = (over: Partial<EventRow> = {}): EventRow => ({
  id: '5',
  uuid: '2b1f3f5e-8a51-4c1e-9d6f-0f4a3c2b1a00',
  account_id: '7',
  stream_id: '70',
  stream_uid: 'stream-70',
  campaign_id: null,
  sender: 'ACME',
  destination: '+4915112345678',
  status: 'delivered',
  outgoing_status: 'delivered',
  error: null,
  vendor_id: '3',
  provider_id: '0000000abc',
  sent_at: new Date('2026-11-22T10:00:00Z'),
  delivered_at: new Date('2026-11-22T10:00:02Z'),
  mcc: null,
  mnc: null,
  network: null,
  body_length: 200,
  segments: 2,
  parts: 2,
  encoding: 'GSM7',
  price_micros: '90000',
  currency: 'EUR',
  possible_duplicate: false,
  ...over,
});

describe('lifecycle events built without zod still satisfy the contracts', () => {
  it('builds a status change and an EDR for a final message that pass their schemas', () => {
    const events = lifecycleEvents([row()], { final: true });
    expect(events.map((e) => e.type)).toEqual([MessageStatusChangedV1.type, MessageEdrV1.type]);
    expect(MessageStatusChangedV1.schema.parse(events[0].data)).toEqual(events[0].data);
    expect(MessageEdrV1.schema.parse(events[1].data)).toMatchObject({ messagePartsCount: 2, costMicros: 90_000, rateMicros: 45_000, utf8: false, messageLength: 200 });
    expect(events[0]).toMatchObject({ topic: MessageStatusChangedV1.topic, key: row().uuid, accountId: '7', source: 'dispatch', version: 1 });
  });

  it('adds a refund for a refundable final status with a price, and none without a price', () => {
    const events = lifecycleEvents([row({ status: 'no_routes', outgoing_status: 'failed', sent_at: null, delivered_at: null, parts: null }), row({ uuid: '2b1f3f5e-8a51-4c1e-9d6f-0f4a3c2b1a01', status: 'rejected', price_micros: '0' })], {
      final: true,
      refundReason: (r) => r.status,
    });
    const refunds = events.filter((e) => e.type === MessageRefundDueV1.type);
    expect(refunds).toHaveLength(1);
    expect(MessageRefundDueV1.schema.parse(refunds[0].data)).toEqual({ messageUuid: row().uuid, accountId: '7', amountMicros: 90_000, currency: 'EUR', reason: 'no_routes' });
    for (const e of events) if (e.type === MessageStatusChangedV1.type) MessageStatusChangedV1.schema.parse(e.data);
  });

  it('continues the send\'s trace from the traceparent stored with the message when this process has none in memory (a restart, another replica)', () => {
    const stored = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const uuid = '2b1f3f5e-8a51-4c1e-9d6f-0f4a3c2b1a02';
    MessageTraces.byUuid.delete(uuid);
    const events = lifecycleEvents([row({ uuid, traceparent: stored })], { final: true });
    expect(events.map((e) => e.traceparent)).toEqual([stored, stored]);
    // without tracing nothing is stored and the events carry no trace context, as before
    expect(lifecycleEvents([row({ uuid, traceparent: null })], { final: true }).map((e) => e.traceparent)).toEqual([undefined, undefined]);
  });
});

describe('lifecycle event ids (docs/decisions/0161)', () => {
  it('are version 7 uuids, unique and ascending in the order the events are built (they key the consumers\' processed_events)', () => {
    const rows = Array.from({ length: 500 }, (_, i) => row({ id: String(i + 1), uuid: `2b1f3f5e-8a51-4c1e-9d6f-${String(i).padStart(12, '0')}`, status: 'rejected' }));
    const ids = lifecycleEvents(rows, { final: true, refundReason: () => 'rejected' }).map((e) => e.id);
    expect(ids).toHaveLength(1500);
    expect(ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id, i) => i === 0 || ids[i - 1] < id)).toBe(true);
  });
});

describe('status changes folded into one event per write batch (statusBatches, docs/decisions/0173)', () => {
  const rows = (n: number, account = (i: number) => String(7 + (i % 2))) =>
    Array.from({ length: n }, (_, i) => row({ id: String(i + 1), uuid: `2b1f3f5e-8a51-4c1e-9d6f-${String(i).padStart(12, '0')}`, account_id: account(i), status: i % 3 ? 'delivered' : 'rejected' }));

  it('carries each status change whole (its id, trace and data with its own account) in a batch that passes the contract; EDRs and refunds stay per message', () => {
    const stored = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const list = rows(6).map((r, i) => (i === 1 ? { ...r, traceparent: stored } : r));
    const single = lifecycleEvents(list, { final: true, refundReason: (r) => (r.status === 'rejected' ? 'rejected' : null) });
    const out = batchStatusChanges(single);
    expect(out.map((e) => e.type)).toEqual([MessageStatusesChangedV1.type, ...single.filter((e) => e.type !== MessageStatusChangedV1.type).map((e) => e.type)]);
    const [batch] = out;
    expect(batch).toMatchObject({ topic: Topics.Dispatch, accountId: null, source: 'dispatch', version: 1, key: list[0].uuid });
    const data = MessageStatusesChangedV1.schema.parse(batch.data);
    const statuses = single.filter((e) => e.type === MessageStatusChangedV1.type);
    expect(data.items).toEqual(statuses.map((e) => ({ id: e.id, data: e.data, ...(e.traceparent ? { traceparent: e.traceparent } : {}) })));
    expect(data.items.map((it) => it.data.accountId)).toEqual(['7', '8', '7', '8', '7', '8']);
    expect(data.items[1].traceparent).toBe(stored);
    // the consumers' reading of it gives back the per-message events, as the per-message form would have carried them
    expect(statusChangesOf(batch).map(({ id, accountId, key, data: d }) => ({ id, accountId, key, data: d }))).toEqual(statuses.map(({ id, accountId, key, data: d }) => ({ id, accountId, key, data: d })));
  });

  it('cuts a batch at STATUS_BATCH_MAX items and leaves a write batch without status changes as it is', () => {
    const out = batchStatusChanges(lifecycleEvents(rows(STATUS_BATCH_MAX * 2 + 1), { final: false }));
    expect(out.map((e) => (e.data as { items: unknown[] }).items.length)).toEqual([STATUS_BATCH_MAX, STATUS_BATCH_MAX, 1]);
    const refunds = lifecycleEvents(rows(2), { final: true, refundReason: () => 'rejected' }).filter((e) => e.type === MessageRefundDueV1.type);
    expect(batchStatusChanges(refunds)).toBe(refunds);
  });

  it('cuts a batch before its items pass STATUS_BATCH_BYTES: long carrier error texts never make an event larger than the relay publishes', () => {
    const long = lifecycleEvents(rows(400), { final: false }).map((e) => ({ ...e, data: { ...(e.data as object), error: 'é"\u0001'.repeat(700) } }));
    const out = batchStatusChanges(long);
    expect(out.length).toBeGreaterThan(1);
    expect(out.flatMap((e) => (e.data as { items: Array<{ id: string }> }).items.map((it) => it.id))).toEqual(long.map((e) => e.id));
    for (const e of out) expect(Buffer.byteLength(JSON.stringify(e))).toBeLessThanOrEqual(STATUS_BATCH_BYTES);
  });
});
