import { ACCEPT_BATCH_MAX, MessageAcceptedV1, MessagesAcceptedV1, MessagesChargedV1, type EventData } from '@switchboard/contracts';
import type { OutgoingEvent } from '@switchboard/platform';
import { batchCharges, foldByAccount, foldedBatchBytes, SEND_EVENTS_TYPE, sendEventsBytes } from './charge-batches';
import { COMPACT_SENDS_TYPE, compactSendsBound, unpackCompactSends } from './compact-sends';

/**
 * The packed outbox row types of a send batch whose accepted events leave as `streams.messages.accepted` events
 * (docs/decisions/0181; `acceptBatches`): with its charges per message, and with its charges as batches too
 * (`chargeBatches`, 0178). `accept_messages` writes the same events as into a `$packed` row; streams' relay folds them
 * on the way out. A relay older than 0181 does not know these types and leaves such rows for a newer one (it never
 * publishes one as a plain row): the option stays off until every streams process runs this release.
 */
export const SEND_EVENTS_ACCEPTED_TYPE = '$streams.sends.accepted';
export const SEND_EVENTS_ALL_TYPE = '$streams.sends.all';

/** The namespace of an accepted batch's id: the uuid v5 of its first item's id and its item count, the same at every publish. */
const ACCEPT_BATCH_NAMESPACE = '8d7e2c61-0b5f-4a0e-b1f4-6c3a9e0181a0';

/** The most estimated JSON bytes of one accepted batch's items: well under the relay's 1 MB an event. */
export const ACCEPT_BATCH_BYTES = 600_000;

type Accepted = EventData<typeof MessageAcceptedV1>;
const len = (v: unknown): number => (typeof v === 'string' ? v.length : 0);

/**
 * An accepted item's JSON bytes at most, without serialising its texts: its fixed fields (numbers, uuids, keys; under
 * 500 B) plus its texts at 6 bytes a character (JSON's `\u00XX` escape, the worst case), plus its payload (WhatsApp
 * templates and media; rare) serialised, at 3 bytes a character (UTF-8).
 */
export function acceptedItemBytes(e: OutgoingEvent): number {
  const d = e.data as Accepted;
  const texts =
    len(d.accountId) +
    len(d.streamId) +
    len(d.streamUid) +
    len(d.channel) +
    len(d.sender) +
    len(d.destination) +
    len(d.iso2) +
    len(d.text) +
    len(d.encoding) +
    len(d.currency) +
    len(d.campaignId) +
    len(d.notBefore) +
    len(d.acceptedAt) +
    len(e.traceId) +
    len(e.traceparent);
  return 500 + 6 * texts + (d.payload ? 3 * JSON.stringify(d.payload).length : 0);
}

/**
 * A send batch's events with its `streams.message.accepted` events folded into `streams.messages.accepted` events of
 * one account each, up to ACCEPT_BATCH_MAX items or ACCEPT_BATCH_BYTES of estimated JSON, each item the per-message
 * event it replaces (its id, trace and data). Every other event keeps its place, first; the batches follow. Pure: the
 * same row gives the same events with the same ids, each batch's id a uuid v5 of its first item's id and its size.
 */
export function batchAccepted(events: OutgoingEvent[]): OutgoingEvent[] {
  return foldByAccount(events, { one: MessageAcceptedV1, batch: MessagesAcceptedV1, max: ACCEPT_BATCH_MAX, maxBytes: ACCEPT_BATCH_BYTES, namespace: ACCEPT_BATCH_NAMESPACE, bytes: acceptedItemBytes });
}

/** Both folds: the accepted batches, then the charge batches (each account's accepted batch before its charges). */
export const batchSends = (events: OutgoingEvent[]): OutgoingEvent[] => batchCharges(batchAccepted(events));

/** The row type a send batch's events are written under, by the two options. */
export function sendRowType(o: { chargeBatches: boolean; acceptBatches: boolean }): string | null {
  if (o.acceptBatches) return o.chargeBatches ? SEND_EVENTS_ALL_TYPE : SEND_EVENTS_ACCEPTED_TYPE;
  return o.chargeBatches ? SEND_EVENTS_TYPE : null;
}

/** The relay's `unpack` and `unpackBound` of every send row type: every streams relay reads them all, whatever its own options. */
/** The folds a compact row (docs/decisions/0210) may name, by the full row type it stands for. */
const FOLDS: Record<string, (events: OutgoingEvent[]) => OutgoingEvent[]> = { [SEND_EVENTS_TYPE]: batchCharges, [SEND_EVENTS_ACCEPTED_TYPE]: batchAccepted, [SEND_EVENTS_ALL_TYPE]: batchSends };
const BATCH_TYPES: ReadonlySet<string> = new Set([MessagesAcceptedV1.type, MessagesChargedV1.type]);
export const SEND_ROWS_UNPACK: Record<string, (events: OutgoingEvent[]) => OutgoingEvent[]> = {
  ...FOLDS,
  [COMPACT_SENDS_TYPE]: (parsed) => unpackCompactSends(FOLDS, parsed),
};
export const SEND_ROWS_BOUND: Record<string, (textBytes: number, events: OutgoingEvent[]) => number> = {
  [SEND_EVENTS_TYPE]: sendEventsBytes,
  [SEND_EVENTS_ACCEPTED_TYPE]: sendEventsBytes,
  [SEND_EVENTS_ALL_TYPE]: sendEventsBytes,
  [COMPACT_SENDS_TYPE]: (textBytes, events) => compactSendsBound(textBytes, events, BATCH_TYPES),
};
/** The relay's `unpackEventBound` of every send row type: a folded batch's own bound (its items' estimates). */
export const SEND_ROWS_EVENT_BOUND: Record<string, (event: OutgoingEvent) => number | undefined> = {
  [SEND_EVENTS_TYPE]: foldedBatchBytes,
  [SEND_EVENTS_ACCEPTED_TYPE]: foldedBatchBytes,
  [SEND_EVENTS_ALL_TYPE]: foldedBatchBytes,
  [COMPACT_SENDS_TYPE]: foldedBatchBytes,
};
