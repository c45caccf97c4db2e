import { getDataSourceToken } from '@nestjs/typeorm';
import { MessageEdrV1, MessageRefundDueV1, MessageStatusesChangedV1, statusChangesOf } from '@switchboard/contracts';
import type { OutgoingEvent } from '@switchboard/platform';
import type { DataSource } from 'typeorm';
import { SmppPeer } from '../src';
import { DISPATCH_CONNECTION, resolveDispatchOptions } from '../src/dispatch.options';
import { dispatchConfigSchema } from '../src/dispatch.config';
import type { EventRow } from '../src/repositories/message.repository';
import { COMPACT_LIFECYCLE_TYPE } from '../src/services/compact-events';
import { addToOutbox, batchStatusChanges, DispatchOutboxRelay, lifecycleEvents } from '../src/services/events.service';
import { smppVendor, startDispatch, type DispatchTestApp } from './support';

let n = 0;
const row = (over: Partial<EventRow> = {}): EventRow => {
  n++;
  return {
    id: String(n), uuid: `7c1f3f5e-8a51-4c1e-9d6f-${String(n).padStart(12, '0')}`, account_id: String(1 + (n % 3)), stream_id: '70', stream_uid: 'stream-70', campaign_id: '12',
    sender: 'ACME', destination: `+49151${String(1000000 + n)}`, status: 'delivered', outgoing_status: 'delivered', error: null, vendor_id: '3', provider_id: `p-${n}`,
    sent_at: '2026-11-29T10:00:00.000Z', delivered_at: '2026-11-29T10:00:02.000Z', mcc: '262', mnc: '01', network: 'Telekom', body_length: 120, segments: 1, parts: 1,
    encoding: 'GSM7', price_micros: '6500', currency: 'EUR', possible_duplicate: false, ...over,
  };
};

/**
 * docs/decisions/0217: a write batch's events go as one compact `$dispatch.lifecycle` row, and dispatch's relay
 * publishes from it the same events a `$packed` row of their JSON gives, in the same order, with the same ids. The
 * relay reads such rows whatever its own option (a replica with the option on may have written them).
 */
describe("dispatch's compact outbox rows through the relay", () => {
  let peer: SmppPeer;
  let d: DispatchTestApp;
  let ds: DataSource;

  beforeAll(async () => {
    peer = new SmppPeer();
    const port = await peer.listen();
    // the option off on this process: its relay still reads compact rows
    d = await startDispatch({ seedVendors: [smppVendor(port)], compactOutbox: false });
    ds = d.t.app.get<DataSource>(getDataSourceToken(DISPATCH_CONNECTION));
  });

  afterAll(async () => {
    await d.close();
    await peer.close();
  });

  /** Writes the events as addToOutbox does in a dispatcher transaction; returns the types of the rows it wrote. */
  const write = (events: OutgoingEvent[], compact: boolean) =>
    ds.transaction(async (m) => {
      await addToOutbox(m, events, true, compact);
      return (await m.query<Array<{ type: string; key: string }>>(`SELECT type, key FROM dispatch.outbox WHERE published_at IS NULL ORDER BY id`)).map((r) => `${r.type}:${r.key}`);
    });

  it('publishes from a compact row the events written, with their ids, as a packed row publishes its own', async () => {
    const batchOf = () => [
      ...lifecycleEvents(Array.from({ length: 60 }, () => row()), { final: true }),
      ...lifecycleEvents(Array.from({ length: 3 }, () => row({ status: 'rejected', outgoing_status: 'failed', error: 'REJECTD', delivered_at: null })), { final: true, refundReason: () => 'rejected' }),
      ...lifecycleEvents(Array.from({ length: 30 }, () => row({ status: 'sent', outgoing_status: 'sent', delivered_at: null, parts: null })), { final: false }),
    ];
    const compactEvents = batchOf();
    const packedEvents = batchOf();
    await d.flushOutbox();
    const before = d.events().length;
    expect(await write(compactEvents, true)).toEqual([`${COMPACT_LIFECYCLE_TYPE}:${batchStatusChanges(compactEvents).length}`]);
    await d.flushOutbox();
    expect(await write(packedEvents, false)).toEqual([`$packed:${batchStatusChanges(packedEvents).length}`]);
    await d.flushOutbox();
    const published = d.events().slice(before);
    const half = published.length / 2;
    const [fromCompact, fromPacked] = [published.slice(0, half), published.slice(half)];
    // every event of the compact row once, member for member as written (the bus keeps the order of each key only,
    // so they are compared by id here; the row's own order is unpack's, compact-events.spec.ts)
    // (the status batch's own id is minted by addToOutbox: its items are compared)
    const [batch, ...rest] = batchStatusChanges(compactEvents);
    const asPublished = (e: OutgoingEvent) => JSON.stringify(e, (k, v: unknown) => (k === 'topic' ? undefined : v));
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    const published1 = fromCompact.find((e) => e.type === MessageStatusesChangedV1.type)!;
    expect(JSON.stringify(published1.data)).toBe(JSON.stringify(batch.data));
    expect(Object.keys(published1)).toEqual(Object.keys(batch).filter((k) => k !== 'topic'));
    expect(fromCompact.filter((e) => e !== published1).sort(byId).map((e) => JSON.stringify(e))).toEqual([...rest].sort(byId).map(asPublished));
    expect(fromCompact.filter((e) => e.type === MessageStatusesChangedV1.type)).toHaveLength(1);
    expect(fromCompact.filter((e) => e.type === MessageEdrV1.type)).toHaveLength(63);
    expect(fromCompact.filter((e) => e.type === MessageRefundDueV1.type)).toHaveLength(3);
    expect(statusChangesOf(fromCompact.find((e) => e.type === MessageStatusesChangedV1.type)!).map((e) => e.id)).toEqual(
      compactEvents.filter((e) => e.type !== MessageEdrV1.type && e.type !== MessageRefundDueV1.type).map((e) => e.id),
    );
    // the same as the packed row's events, but for their ids and the messages' uuids (two batches of the same rows)
    const strip = (e: unknown) => JSON.stringify(e).replace(/"id":"[^"]+"|7c1f3f5e-8a51-4c1e-9d6f-\d{12}|p-\d+|\+49151\d{7}|"occurredAt":"[^"]+"/g, '');
    expect(fromCompact.map(strip).sort()).toEqual(fromPacked.map(strip).sort());
    expect(await d.sql(`SELECT 1 FROM dispatch.outbox`)).toEqual([]);
  });

  it('writes a write batch over the publish cap as several compact rows within it, every event published once, in order', async () => {
    const events = [
      ...lifecycleEvents(Array.from({ length: 1500 }, () => row()), { final: true }),
      ...lifecycleEvents(Array.from({ length: 600 }, () => row({ status: 'sent', outgoing_status: 'sent', delivered_at: null })), { final: false }),
    ];
    await d.flushOutbox();
    const before = d.events().length;
    const rows = await write(events, true);
    // more than one row, each a compact one, their events adding up to the batch's
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.every((r) => r.startsWith(`${COMPACT_LIFECYCLE_TYPE}:`))).toBe(true);
    const batched = batchStatusChanges(events);
    expect(rows.reduce((s, r) => s + Number(r.split(':')[1]), 0)).toBe(batched.length);
    // each row's text within the cap (900,000 B by default; its events' JSON is bounded by it, compact-events.spec.ts)
    for (const { bytes } of await d.sql<{ bytes: string }>(`SELECT octet_length(packed) AS bytes FROM dispatch.outbox WHERE published_at IS NULL`)) expect(Number(bytes)).toBeLessThan(900_000);
    await d.flushOutbox();
    const published = d.events().slice(before);
    // every EDR once; every status change once, in the batches' order
    expect(published.filter((e) => e.type === MessageEdrV1.type)).toHaveLength(1500);
    const changes = published.filter((e) => e.type === MessageStatusesChangedV1.type).flatMap((e) => statusChangesOf(e).map((c) => c.id));
    expect(changes).toEqual(batched.filter((e) => e.type === MessageStatusesChangedV1.type).flatMap((e) => statusChangesOf(e).map((c) => c.id)));
    expect(await d.sql(`SELECT 1 FROM dispatch.outbox`)).toEqual([]);
  });

  it('is on by default, off with DISPATCH_COMPACT_OUTBOX=false', () => {
    expect(dispatchConfigSchema.shape.DISPATCH_COMPACT_OUTBOX.parse(undefined)).toBe(true);
    expect(dispatchConfigSchema.shape.DISPATCH_COMPACT_OUTBOX.parse('false')).toBe(false);
    expect(resolveDispatchOptions({}).compactOutbox).toBe(true);
    expect(resolveDispatchOptions({ compactOutbox: false }).compactOutbox).toBe(false);
    expect(d.t.app.get(DispatchOutboxRelay).compactRows).toBe(false);
  });
});
