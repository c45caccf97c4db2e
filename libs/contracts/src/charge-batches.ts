import type { EventEnvelope } from './events';
import { isContractUuid } from './status-fast-parse';
import { CHARGE_BATCH_MAX, MessageChargedV1, MessagesChargedV1 } from './messaging-events';

/** Whether an event is a batch of charges this code reads (`chargesOf`, docs/decisions/0178). */
export const isChargeBatch = (e: EventEnvelope): boolean => e.type === MessagesChargedV1.type && e.version === MessagesChargedV1.version;

/** One item of a `streams.messages.charged` batch as it travels; its data is checked by the consumer, as a per-message event's. */
export interface ChargeItem {
  id: string;
  traceId?: string | null;
  traceparent?: string;
  data: unknown;
}

/**
 * The items of a `streams.messages.charged` event, their shape checked (an id, an optional trace, a data object) but
 * not their data: each consumer checks an item's data as it checks a per-message event's, so one bad item fails alone.
 * A batch whose shape is wrong throws the schema's error (the whole batch is retried and dead-lettered as one event).
 */
export function chargeItemsOf(e: EventEnvelope): ChargeItem[] {
  const items = (e.data as { items?: unknown } | null)?.items;
  if (!Array.isArray(items) || items.length === 0 || items.length > CHARGE_BATCH_MAX || !items.every(isChargeItem)) {
    MessagesChargedV1.schema.parse(e.data);
    throw new Error(`${e.type} ${e.id}: not a batch of charges`);
  }
  return items as ChargeItem[];
}

/**
 * A `streams.messages.charged` event as the per-message `streams.message.charged` events it stands for: each with the
 * item's id, trace and data, its envelope's account the item's own `accountId` (never the batch's) and its key that
 * account, as streams publishes the per-message form. The data are not copied.
 */
export function chargesOf(e: EventEnvelope): EventEnvelope[] {
  return chargeItemsOf(e).map((it) => {
    const accountId = (it.data as { accountId?: unknown }).accountId;
    const account = typeof accountId === 'string' ? accountId : null;
    const one: EventEnvelope = {
      id: it.id,
      type: MessageChargedV1.type,
      version: MessageChargedV1.version,
      occurredAt: e.occurredAt,
      source: e.source,
      accountId: account,
      traceId: it.traceId ?? null,
      key: account ?? '',
      data: it.data,
    };
    if (it.traceparent !== undefined) one.traceparent = it.traceparent;
    return one;
  });
}

/** A chunk with each batch of charges in it replaced by its per-message events (the chunk itself when it has none). */
export function flattenChargeBatches(events: EventEnvelope[]): EventEnvelope[] {
  if (!events.some(isChargeBatch)) return events;
  const out: EventEnvelope[] = [];
  for (const e of events) {
    if (isChargeBatch(e)) for (const one of chargesOf(e)) out.push(one);
    else out.push(e);
  }
  return out;
}

function isChargeItem(v: unknown): v is ChargeItem {
  if (typeof v !== 'object' || v === null) return false;
  const it = v as Record<string, unknown>;
  return (
    isContractUuid(it.id) &&
    (it.traceId === undefined || it.traceId === null || typeof it.traceId === 'string') &&
    (it.traceparent === undefined || typeof it.traceparent === 'string') &&
    typeof it.data === 'object' &&
    it.data !== null &&
    !Array.isArray(it.data)
  );
}
