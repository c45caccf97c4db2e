import { z } from 'zod';
import type { EventDefinition, EventEnvelope } from './events';

/**
 * The "items batch" shape shared by the per-batch forms of per-message events (docs/decisions/0173, 0178, 0181):
 * dispatch's `dispatch.message.statuses_changed`, streams' `streams.messages.charged` and `streams.messages.accepted`.
 * Each is `{ items: [{ id, traceId?, traceparent?, data }] }`, 1 to `max` items, each item exactly the per-message event
 * it stands for: its own event id (what consumers claim), its trace, and its data (with its own `accountId`).
 */

// as zod 3 checks `z.string().uuid()`
const UUID = /^[0-9a-fA-F]{8}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{12}$/i;

/** A uuid as the contracts' `z.string().uuid()` accepts it: the hand-written event checks of every consumer use this. */
export const isContractUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

/** The schema of an items batch whose items' data are `data`'s, 1 to `max` of them. */
export function itemsBatchSchema<T extends z.ZodTypeAny>(data: T, max: number) {
  return z.object({
    items: z
      .array(z.object({ id: z.string().uuid(), traceId: z.string().nullable().optional(), traceparent: z.string().optional(), data }))
      .min(1)
      .max(max),
  });
}

/**
 * `itemsBatchSchema(data, max).parse` written out by hand (docs/decisions/0192), with `fastData` the hand-written check of
 * the items' data: a new batch of new items (the schema's keys only, an optional key only when the item has it) when
 * every item passes, undefined for anything else (then the schema decides, with its error).
 */
export function fastItemsBatch<T>(fastData: (data: unknown) => T | undefined, max: number): (data: unknown) => { items: Array<{ id: string; traceId?: string | null; traceparent?: string; data: T }> } | undefined {
  return (data) => {
    if (!isPlainRecord(data)) return undefined;
    const items = data.items;
    if (!Array.isArray(items) || items.length < 1 || items.length > max) return undefined;
    const out = new Array<{ id: string; traceId?: string | null; traceparent?: string; data: T }>(items.length);
    for (let i = 0; i < items.length; i++) {
      const it: unknown = items[i];
      if (!isPlainRecord(it) || !isContractUuid(it.id)) return undefined;
      const item: { id: string; traceId?: string | null; traceparent?: string; data: T } = { id: it.id } as { id: string; data: T };
      if ('traceId' in it) {
        const traceId = it.traceId;
        if (traceId !== null && typeof traceId !== 'string') return undefined;
        item.traceId = traceId;
      }
      if ('traceparent' in it) {
        const traceparent = it.traceparent;
        if (typeof traceparent !== 'string') return undefined;
        item.traceparent = traceparent;
      }
      const d = fastData(it.data);
      if (d === undefined) return undefined;
      item.data = d;
      out[i] = item;
    }
    return { items: out };
  };
}

/**
 * An object zod 3 reads as one (`z.object`, `z.record`) and nothing it might not: a plain object (what JSON, an object
 * literal or the bus's copy makes). Arrays, Dates, Maps, Sets, promises and class instances fail (docs/decisions/0192).
 */
export function isPlainRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** One item of an items batch as it travels; its data is checked by the consumer, as a per-message event's. */
export interface BatchedItem {
  id: string;
  traceId?: string | null;
  traceparent?: string;
  data: Record<string, unknown>;
}

/** What a reader of one items batch type needs: the batch's definition, its per-message event's, its item cap. */
export interface ItemsBatchKind {
  /** The batch event. */
  batch: Pick<EventDefinition<unknown>, 'type' | 'version'> & { schema: { parse: (data: unknown) => unknown } };
  /** The per-message event each item stands for. */
  one: Pick<EventDefinition<unknown>, 'type' | 'version'>;
  max: number;
  /** What the batch holds, for the error of a batch of the wrong shape ("status changes"). */
  what: string;
  /** The per-message event's key from an item's data (the same as `one.key` on good data; never throws). */
  key: (data: Record<string, unknown>) => string;
  /**
   * Where an item's per-message event takes its `traceId`: the item's own (`item`, missing is null) or the batch
   * envelope's (`batch`: dispatch's status items carry none).
   */
  traceId: 'item' | 'batch';
}

/** Whether an event is a batch of `kind` that this code reads. */
export const isItemsBatch = (kind: ItemsBatchKind, e: EventEnvelope): boolean => e.type === kind.batch.type && e.version === kind.batch.version;

/**
 * The items of a batch of `kind`, their shape checked (an id, optional traces, a data object) but not their data: each
 * consumer checks an item's data as it checks a per-message event's, so one bad item fails alone. A batch whose shape is
 * wrong throws the schema's error (the whole batch is retried and dead-lettered as one event).
 */
export function batchItemsOf(kind: ItemsBatchKind, e: EventEnvelope): BatchedItem[] {
  const items = (e.data as { items?: unknown } | null)?.items;
  if (!Array.isArray(items) || items.length === 0 || items.length > kind.max || !items.every(isBatchedItem)) {
    kind.batch.schema.parse(e.data);
    throw new Error(`${e.type} ${e.id}: not a batch of ${kind.what}`);
  }
  return items as BatchedItem[];
}

/**
 * A batch of `kind` as the per-message events it stands for: each with the item's id, trace and data, its envelope's
 * account the item's own `accountId` (never the batch's) and its key the per-message event's, so a consumer handles it
 * as it handles the per-message form, with the same claims (a redelivered batch claims the same ids) and the same
 * per-item checks. The items' data are not copied.
 */
export function perItemEvents(kind: ItemsBatchKind, e: EventEnvelope, items: BatchedItem[] = batchItemsOf(kind, e)): EventEnvelope[] {
  const out = new Array<EventEnvelope>(items.length);
  const fromItem = kind.traceId === 'item';
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    const accountId = it.data.accountId;
    const one: EventEnvelope = {
      id: it.id,
      type: kind.one.type,
      version: kind.one.version,
      occurredAt: e.occurredAt,
      source: e.source,
      accountId: typeof accountId === 'string' ? accountId : null,
      traceId: fromItem ? (it.traceId ?? null) : e.traceId,
      key: kind.key(it.data),
      data: it.data,
    };
    if (it.traceparent !== undefined) one.traceparent = it.traceparent;
    out[i] = one;
  }
  return out;
}

/**
 * A chunk with each batch of `kind` in it replaced by its per-message events (the chunk itself when it has none). With
 * `keep`, only a batch's items whose data it keeps become events.
 */
export function flattenItemsBatches(kind: ItemsBatchKind, events: EventEnvelope[], keep?: (data: unknown) => boolean): EventEnvelope[] {
  if (!events.some((e) => isItemsBatch(kind, e))) return events;
  const out: EventEnvelope[] = [];
  for (const e of events) {
    if (!isItemsBatch(kind, e)) {
      out.push(e);
      continue;
    }
    const items = batchItemsOf(kind, e);
    const kept = keep ? items.filter((it) => keep(it.data)) : items;
    for (const one of perItemEvents(kind, e, kept)) out.push(one);
  }
  return out;
}

function isBatchedItem(v: unknown): v is BatchedItem {
  if (typeof v !== 'object' || v === null) return false;
  const it = v as Record<string, unknown>;
  const traceId = it.traceId;
  return (
    isContractUuid(it.id) &&
    (traceId === undefined || traceId === null || typeof traceId === 'string') &&
    (it.traceparent === undefined || typeof it.traceparent === 'string') &&
    typeof it.data === 'object' &&
    it.data !== null &&
    !Array.isArray(it.data)
  );
}
