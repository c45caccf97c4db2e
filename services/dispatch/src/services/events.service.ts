import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  MessageEdrV1,
  MessageRefundDueV1,
  MessageStatusChangedV1,
  MessageStatusesChangedV1,
  realtimeSubject,
  STATUS_BATCH_MAX,
  type EventData,
  type EventDefinition,
} from '@switchboard/contracts';
import { EventBus, Outbox, outboxMaxBatchBytes, PROCESS_ROLES, RealtimeFanout, ServiceOutboxRelay, timeOrderedUuid, type OutgoingEvent, type ProcessRoles } from '@switchboard/platform';
import { DISPATCH_CONNECTION, DISPATCH_OPTIONS, DISPATCH_SCHEMA, type ResolvedDispatchOptions } from '../dispatch.options';
import type { EventRow } from '../repositories/message.repository';
import { COMPACT_LIFECYCLE_TYPE, compactLifecycleRows, lifecycleBound, NotCompactable, unpackLifecycle, type CompactRowText } from './compact-events';

const SOURCE = 'dispatch';

/**
 * Builds an envelope like the platform's createEnvelope, without running the zod schema: on the hot path (three
 * events per message at 10k messages/s) parsing costs more than everything else in the event. The data is built
 * by the typed functions below only, and their output is checked against the schemas in events.service.spec.ts.
 */
export function fastEnvelope<T>(def: EventDefinition<T>, data: T, accountId: string | null, at = new Date(), traceparent?: string): OutgoingEvent<T> {
  const event: OutgoingEvent<T> = {
    // time-ordered, as createEnvelope's (docs/decisions/0161): consumers key processed_events by it
    id: timeOrderedUuid(),
    type: def.type,
    version: def.version,
    occurredAt: at.toISOString(),
    source: SOURCE,
    accountId,
    traceId: null,
    key: def.key(data),
    data,
    topic: def.topic,
  };
  if (traceparent) event.traceparent = traceparent;
  return event;
}

/**
 * OpenTelemetry (docs/decisions/0039-observability.md): a message's status events are written by the send and receipt
 * loops, outside the span that handled its accepted event. That span's `traceparent` is kept here per message uuid
 * (in memory, only while the process traces), so the status changes, EDR and refund continue the trace of the send
 * that caused them. Bounded: the oldest entries go first; a message whose receipt comes after a restart (or after
 * MAX entries) starts no trace of its own, its events just carry none.
 */
export const MessageTraces = {
  MAX: 100_000,
  byUuid: new Map<string, string>(),
  remember(uuid: string, traceparent: string | undefined): void {
    if (!traceparent) return;
    const m = MessageTraces.byUuid;
    if (m.size >= MessageTraces.MAX) m.delete(m.keys().next().value as string);
    m.set(uuid, traceparent);
  },
  of(uuid: string, final: boolean): string | undefined {
    const m = MessageTraces.byUuid;
    if (m.size === 0) return undefined;
    const traceparent = m.get(uuid);
    if (final && traceparent) m.delete(uuid);
    return traceparent;
  },
};

const iso = (d: Date | string | null): string | null => (d === null ? null : typeof d === 'string' ? d : d.toISOString());

export function statusChangedData(r: EventRow, at: Date): EventData<typeof MessageStatusChangedV1> {
  return {
    messageUuid: r.uuid,
    accountId: String(r.account_id),
    streamId: String(r.stream_id),
    streamUid: r.stream_uid,
    campaignId: r.campaign_id === null ? null : String(r.campaign_id),
    sender: r.sender,
    destination: r.destination,
    status: r.status,
    outgoingStatus: r.outgoing_status,
    error: r.error,
    vendorId: r.vendor_id === null ? null : String(r.vendor_id),
    providerMessageId: r.provider_id,
    sentAt: iso(r.sent_at),
    deliveredAt: iso(r.delivered_at),
    mcc: r.mcc,
    mnc: r.mnc,
    occurredAt: at.toISOString(),
    possibleDuplicate: r.possible_duplicate,
    ...(r.parts ? { parts: r.parts } : {}),
  };
}

export function edrData(r: EventRow): EventData<typeof MessageEdrV1> {
  const parts = Math.max(1, r.parts ?? r.segments);
  const cost = Number(r.price_micros);
  return {
    messageUuid: r.uuid,
    accountId: String(r.account_id),
    streamId: String(r.stream_id),
    streamUid: r.stream_uid,
    campaignId: r.campaign_id === null ? null : String(r.campaign_id),
    sender: r.sender,
    destination: r.destination,
    status: r.status,
    sentAt: iso(r.sent_at),
    deliveredAt: iso(r.delivered_at),
    mcc: r.mcc,
    mnc: r.mnc,
    network: r.network,
    messageLength: Number(r.body_length),
    messagePartsCount: parts,
    utf8: r.encoding === 'UCS2',
    costMicros: cost,
    rateMicros: Math.round(cost / Math.max(1, r.segments)),
    currency: r.currency,
  };
}

export function refundData(r: EventRow, reason: string): EventData<typeof MessageRefundDueV1> {
  return { messageUuid: r.uuid, accountId: String(r.account_id), amountMicros: Number(r.price_micros), currency: r.currency, reason };
}

/**
 * Writes events to `dispatch.outbox` in the caller's transaction. A write batch of the dispatcher carries two or three
 * events per message for thousands of messages: they go as one packed row (the relay publishes each event with its
 * own id, in order), which took the outbox from half of dispatch's database time to a few percent. Small batches
 * (API calls, sweeps) take the plain row-per-event path.
 */
export async function addToOutbox(m: EntityManager, events: OutgoingEvent[], statusBatches = false, compactRows = false): Promise<void> {
  const out = statusBatches ? batchStatusChanges(events) : events;
  if (out.length < PACK_AT) return Outbox.add(m, DISPATCH_SCHEMA, out);
  if (compactRows) {
    // the same events as tables of columns (docs/decisions/0217), in rows within the relay's publish cap (0220);
    // events the tables cannot hold exactly go packed
    let rows: CompactRowText[] | null = null;
    try {
      rows = compactLifecycleRows(out, outboxMaxBatchBytes());
    } catch (e) {
      if (!(e instanceof NotCompactable)) throw e;
    }
    if (rows !== null) {
      for (const row of rows) await Outbox.addPacked(m, DISPATCH_SCHEMA, row.events, row.text, COMPACT_LIFECYCLE_TYPE);
      return;
    }
  }
  return Outbox.addPacked(m, DISPATCH_SCHEMA, out);
}

/**
 * A write batch's events with its status changes folded into `dispatch.message.statuses_changed` events of up to
 * STATUS_BATCH_MAX items, first (each item the per-message event it replaces: its id, trace and data, the data carrying
 * its own account); every other event (EDRs, refunds) after them, in its order. A batch's envelope names no account.
 * A batch is also cut before its items' estimated JSON passes STATUS_BATCH_BYTES, so carriers' long error texts never
 * make one event larger than the relay publishes (OUTBOX_MAX_EVENT_BYTES, 1 MB): a batch over it would be given up.
 */
export function batchStatusChanges(events: OutgoingEvent[], at = new Date()): OutgoingEvent[] {
  const rest: OutgoingEvent[] = [];
  const out: OutgoingEvent[] = [];
  let items: EventData<typeof MessageStatusesChangedV1>['items'] = [];
  let bytes = 0;
  const cut = () => {
    if (items.length) out.push(fastEnvelope(MessageStatusesChangedV1, { items }, null, at));
    items = [];
    bytes = 0;
  };
  for (const e of events) {
    if (e.type !== MessageStatusChangedV1.type) {
      rest.push(e);
      continue;
    }
    const data = e.data as EventData<typeof MessageStatusChangedV1>;
    const size = itemBytes(data);
    if (items.length && bytes + size > STATUS_BATCH_BYTES) cut();
    const item: (typeof items)[number] = { id: e.id, data };
    if (e.traceparent) item.traceparent = e.traceparent;
    items.push(item);
    bytes += size;
    if (items.length === STATUS_BATCH_MAX) cut();
  }
  cut();
  if (out.length === 0) return events;
  for (const e of rest) out.push(e);
  return out;
}

/** The most estimated JSON bytes of one batch's items: well under the relay's 1 MB an event (0173). */
export const STATUS_BATCH_BYTES = 600_000;

/**
 * An item's JSON bytes at most, without serialising it: its fixed fields and ids (under 600 B), plus its carrier texts
 * at 6 bytes a character (JSON's `\u00XX` escape, the worst case).
 */
function itemBytes(d: EventData<typeof MessageStatusChangedV1>): number {
  return 600 + 6 * (d.sender.length + d.destination.length + d.streamUid.length + (d.outgoingStatus?.length ?? 0) + (d.error?.length ?? 0) + (d.providerMessageId?.length ?? 0));
}

const PACK_AT = 50;

/** The events of status rows: a status change for each; an EDR for each final one; a refund where due. */
export function lifecycleEvents(rows: EventRow[], opts: { final: boolean; refundReason?: (r: EventRow) => string | null } = { final: false }): OutgoingEvent[] {
  const at = new Date();
  const out: OutgoingEvent[] = [];
  for (const r of rows) {
    const acc = String(r.account_id);
    // in memory while this process handled the accepted event; else (a restart, another replica) the stored one
    const tp = MessageTraces.of(r.uuid, opts.final) ?? r.traceparent ?? undefined;
    out.push(fastEnvelope(MessageStatusChangedV1, statusChangedData(r, at), acc, at, tp));
    if (opts.final) out.push(fastEnvelope(MessageEdrV1, edrData(r), acc, at, tp));
    const reason = opts.refundReason?.(r);
    if (reason && Number(r.price_micros) > 0) out.push(fastEnvelope(MessageRefundDueV1, refundData(r, reason), acc, at, tp));
  }
  return out;
}

/** Publishes `dispatch.outbox`, in processes that run the relay role. */
@Injectable()
export class DispatchOutboxRelay extends ServiceOutboxRelay {
  /**
   * Which form the status changes this relay publishes take (docs/decisions/0173): a `dispatch.message.status_changed`
   * each (false), or one `dispatch.message.statuses_changed` per write batch (the `statusBatches` option,
   * `DISPATCH_STATUS_BATCHES`, on by default since 0173 stop 29). Set it false while an older consumer still runs.
   * The writers of the outbox pass it to `addToOutbox`.
   */
  readonly statusBatches: boolean;
  /**
   * Whether a write batch's events go as one compact `$dispatch.lifecycle` row (docs/decisions/0217; the
   * `compactOutbox` option, `DISPATCH_COMPACT_OUTBOX`, on by default) or as a `$packed` row of their JSON. A relay older
   * than 0217 cannot read a compact row: set it false while one runs. The writers of the outbox pass it to `addToOutbox`.
   */
  readonly compactRows: boolean;

  constructor(
    @InjectDataSource(DISPATCH_CONNECTION) ds: DataSource,
    @Inject(EventBus) bus: EventBus,
    @Inject(PROCESS_ROLES) roles: ProcessRoles,
    @Inject(DISPATCH_OPTIONS) options: ResolvedDispatchOptions,
  ) {
    // Published rows are deleted, not marked (docs/decisions/0096): nothing reads dispatch's published rows, its
    // event ids are minted per event, and a mark rewrote every row with its payload (~1 KB of WAL per message).
    super(DISPATCH_SCHEMA, ds, bus, roles, {
      batchSize: options.outboxBatchSize,
      pollIntervalMs: 500,
      deletePublished: true,
      // read whatever the option: a replica of this release with the option on may have written them (0217)
      unpack: { [COMPACT_LIFECYCLE_TYPE]: unpackLifecycle },
      unpackBound: { [COMPACT_LIFECYCLE_TYPE]: lifecycleBound },
    });
    this.statusBatches = options.statusBatches;
    this.compactRows = options.compactOutbox;
  }
}

interface AccountBatch {
  counts: Record<string, number>;
  uuids: string[];
}

/**
 * `rt.<accountId>.messages`: status changes batched per account and flushed at most every `realtimeIntervalMs`,
 * so a campaign of a million messages makes a few messages a second per account, not a million.
 */
@Injectable()
export class MessageRealtime implements OnModuleDestroy {
  private readonly log = new Logger(MessageRealtime.name);
  private pending = new Map<string, AccountBatch>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(RealtimeFanout) private readonly realtime: RealtimeFanout,
    @Inject(DISPATCH_OPTIONS) private readonly options: ResolvedDispatchOptions,
  ) {}

  add(rows: Array<Pick<EventRow, 'account_id' | 'uuid' | 'status'>>): void {
    for (const r of rows) {
      const acc = String(r.account_id);
      const b = this.pending.get(acc) ?? { counts: {}, uuids: [] };
      b.counts[r.status] = (b.counts[r.status] ?? 0) + 1;
      if (b.uuids.length < 100) b.uuids.push(r.uuid);
      this.pending.set(acc, b);
    }
    if (!this.timer && this.pending.size > 0) {
      this.timer = setTimeout(() => this.flush(), this.options.realtimeIntervalMs);
      this.timer.unref();
    }
  }

  flush(): void {
    this.timer = null;
    const batches = this.pending;
    this.pending = new Map();
    for (const [accountId, b] of batches) {
      this.realtime
        .publish(realtimeSubject(accountId, 'messages'), { accountId, topic: 'messages', type: 'status_changed', data: { counts: b.counts, messageUuids: b.uuids } })
        .catch((e: unknown) => this.log.warn(`realtime publish failed: ${String(e)}`));
    }
  }

  onModuleDestroy(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
