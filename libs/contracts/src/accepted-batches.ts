import type { EventEnvelope } from './events';
import { batchItemsOf, flattenItemsBatches, isItemsBatch, perItemEvents, type BatchedItem, type ItemsBatchKind } from './items-batch';
import { ACCEPT_BATCH_MAX, MessageAcceptedV1, MessagesAcceptedV1 } from './messaging-events';

/** The accepted batch as an items batch (docs/decisions/0181): its items' traces are their own, keyed by message. */
export const ACCEPT_BATCHES: ItemsBatchKind = {
  batch: MessagesAcceptedV1,
  one: MessageAcceptedV1,
  max: ACCEPT_BATCH_MAX,
  what: 'accepted messages',
  key: (d) => (typeof d.messageUuid === 'string' ? d.messageUuid : ''),
  traceId: 'item',
};

/** Whether an event is a batch of accepted messages this code reads (`acceptedOf`). */
export const isAcceptBatch = (e: EventEnvelope): boolean => isItemsBatch(ACCEPT_BATCHES, e);

/**
 * The items of a `streams.messages.accepted` event, their shape checked but not their data (each consumer checks an
 * item's data as a per-message event's, so one bad item fails alone); a batch of the wrong shape throws the schema's error.
 */
export const acceptedItemsOf = (e: EventEnvelope): BatchedItem[] => batchItemsOf(ACCEPT_BATCHES, e);

/**
 * A `streams.messages.accepted` event as the per-message `streams.message.accepted` events it stands for: each with the
 * item's id, trace and data, its account the item's own `accountId` (never the batch's), its key the message uuid.
 */
export const acceptedOf = (e: EventEnvelope): EventEnvelope[] => perItemEvents(ACCEPT_BATCHES, e);

/** A chunk with each batch of accepted messages in it replaced by its per-message events (the chunk itself when it has none). */
export const flattenAcceptBatches = (events: EventEnvelope[]): EventEnvelope[] => flattenItemsBatches(ACCEPT_BATCHES, events);
