import { CHARGE_BATCH_MAX, MessageChargedV1, MessagesAcceptedV1, MessagesChargedV1, type EventData } from '@switchboard/contracts';
import { uuidV5, type OutgoingEvent } from '@switchboard/platform';

/**
 * The packed outbox row type of a send batch whose charges leave as `streams.messages.charged` events (docs/decisions/0178):
 * `accept_messages` writes the same events as into a `$packed` row, and streams' relay folds the charges on the way out
 * (`batchCharges`). With `chargeBatches` on (the default); a relay older than 0178 does not know the type and leaves such a row
 * for a newer one (it never publishes it as a plain row).
 */
export const SEND_EVENTS_TYPE = '$streams.sends';

/** The namespace of a charge batch's id: the uuid v5 of its first item's id and its item count, the same at every publish. */
const CHARGE_BATCH_NAMESPACE = '5f0c8b8e-3a43-4f7e-9a31-1f1b0c178178';

/** The most estimated JSON bytes of one batch's items: well under the relay's 1 MB an event. */
export const CHARGE_BATCH_BYTES = 600_000;

type Charged = EventData<typeof MessageChargedV1>;
/** One item of a folded batch: the per-message event's id, trace and data. */
interface Item {
  id: string;
  traceId?: string | null;
  traceparent?: string;
  data: unknown;
}

/**
 * An item's JSON bytes at most, without serialising it: its fixed fields (numbers, ids; under 300 B) plus its texts at
 * 6 bytes a character (JSON's `\u00XX` escape, the worst case).
 */
function itemBytes(e: OutgoingEvent, d: Charged): number {
  return 300 + 6 * (String(d.accountId).length + String(d.currency).length + (e.traceId?.length ?? 0) + (e.traceparent?.length ?? 0));
}

/**
 * A send batch's events (a `SEND_EVENTS_TYPE` row's, in order) with its `streams.message.charged` events folded into
 * `streams.messages.charged` events of one account each, up to CHARGE_BATCH_MAX items or CHARGE_BATCH_BYTES of estimated
 * JSON; each item is the per-message event it replaces (its id, trace and data, the data carrying its own account).
 * Every other event (the accepted ones) keeps its place, first; the batches follow, by account in the order each first
 * came, each account's charges in their order. Pure: the same row gives the same events with the same ids (a relay that
 * dies after publishing publishes the row again), each batch's id a uuid v5 of its first item's id and its size.
 */
export function batchCharges(events: OutgoingEvent[]): OutgoingEvent[] {
  return foldByAccount(events, { one: MessageChargedV1, batch: MessagesChargedV1, max: CHARGE_BATCH_MAX, maxBytes: CHARGE_BATCH_BYTES, namespace: CHARGE_BATCH_NAMESPACE, bytes: (e) => itemBytes(e, e.data as Charged) });
}

/** What `foldByAccount` folds: which per-message events into which batch, the batch's caps and its ids' namespace. */
export interface AccountFold {
  one: { type: string; version: number };
  batch: { type: string; version: number; topic: string };
  max: number;
  maxBytes: number;
  namespace: string;
  /** An item's estimated JSON bytes at most, without serialising it. */
  bytes: (e: OutgoingEvent) => number;
}

/** Each batch `foldByAccount` made: the bytes its envelope serialises to at most. */
const BATCH_BOUNDS = new WeakMap<OutgoingEvent, number>();

/**
 * The bytes a batch event made by `foldByAccount` serialises to at most (the relay's `unpackEventBound`: a row whose
 * events together are over the publish cap is sized event by event, docs/decisions/0220); undefined for any other event.
 */
export function foldedBatchBytes(event: OutgoingEvent): number | undefined {
  return BATCH_BOUNDS.get(event);
}

/**
 * `events` with `fold.one`'s events folded into `fold.batch` events of one account each (up to `max` items or `maxBytes`
 * of estimated JSON), each item the per-message event it replaces (its id, trace and data). Every other event keeps its
 * place, first; the batches follow, by account in the order each first came, each account's events in their order.
 * Pure: each batch's id is a uuid v5 (in `namespace`) of its first item's id and its size (docs/decisions/0178, 0181).
 */
export function foldByAccount(events: OutgoingEvent[], fold: AccountFold): OutgoingEvent[] {
  const out: OutgoingEvent[] = [];
  const byAccount = new Map<string, OutgoingEvent[]>();
  for (const e of events) {
    if (e.type !== fold.one.type || e.version !== fold.one.version || typeof e.accountId !== 'string') {
      out.push(e);
      continue;
    }
    const list = byAccount.get(e.accountId);
    if (list) list.push(e);
    else byAccount.set(e.accountId, [e]);
  }
  if (byAccount.size === 0) return events;
  for (const [accountId, ones] of byAccount) {
    let first: OutgoingEvent | null = null;
    let items: Item[] = [];
    let bytes = 0;
    const cut = (): void => {
      if (!first || items.length === 0) return;
      const batch: OutgoingEvent<{ items: Item[] }> = {
        id: uuidV5(`${first.id}/${items.length}`, fold.namespace),
        type: fold.batch.type,
        version: fold.batch.version,
        occurredAt: first.occurredAt,
        source: first.source,
        accountId,
        traceId: first.traceId ?? null,
        key: accountId,
        data: { items },
        topic: fold.batch.topic,
      };
      if (first.traceparent) batch.traceparent = first.traceparent;
      // its items' estimates (each at most its JSON) with a comma each, and its envelope (under 1 KB)
      BATCH_BOUNDS.set(batch, 1024 + bytes + items.length);
      out.push(batch);
      first = null;
      items = [];
      bytes = 0;
    };
    for (const e of ones) {
      const size = fold.bytes(e);
      if (items.length && bytes + size > fold.maxBytes) cut();
      const item: Item = { id: e.id, data: e.data };
      if (e.traceId) item.traceId = e.traceId;
      if (e.traceparent) item.traceparent = e.traceparent;
      first ??= e;
      items.push(item);
      bytes += size;
      if (items.length === fold.max) cut();
    }
    cut();
  }
  return out;
}

/**
 * The bytes a send batch row's events serialise to at most, for the relay's publish calls (`unpackBound`): each item
 * of a batch is its per-message event less its envelope's fields, so the items of a row serialise to less than its
 * charges did; each batch adds its own envelope (under 1 KB). Without it the relay would bound the row by three times
 * its text and serialise every event of a large row to size it, where a `$packed` row of the same text is not.
 */
export function sendEventsBytes(textBytes: number, events: OutgoingEvent[]): number {
  let batches = 0;
  for (const e of events) if (e.type === MessagesChargedV1.type || e.type === MessagesAcceptedV1.type) batches++;
  return textBytes + 1024 * batches;
}
