import type { EventEnvelope } from './events';
import { batchItemsOf, flattenItemsBatches, isItemsBatch, perItemEvents, type BatchedItem, type ItemsBatchKind } from './items-batch';
import { CHARGE_BATCH_MAX, MessageChargedV1, MessagesChargedV1 } from './messaging-events';

/** The charges batch as an items batch (docs/decisions/0178, 0181): its items' traces are their own, keyed by account. */
export const CHARGE_BATCHES: ItemsBatchKind = {
  batch: MessagesChargedV1,
  one: MessageChargedV1,
  max: CHARGE_BATCH_MAX,
  what: 'charges',
  key: (d) => (typeof d.accountId === 'string' ? d.accountId : ''),
  traceId: 'item',
};

/** Whether an event is a batch of charges this code reads (`chargesOf`, docs/decisions/0178). */
export const isChargeBatch = (e: EventEnvelope): boolean => isItemsBatch(CHARGE_BATCHES, e);

/** One item of a `streams.messages.charged` batch as it travels; its data is checked by the consumer, as a per-message event's. */
export type ChargeItem = BatchedItem;

/**
 * The items of a `streams.messages.charged` event, their shape checked (an id, an optional trace, a data object) but
 * not their data: each consumer checks an item's data as it checks a per-message event's, so one bad item fails alone.
 * A batch whose shape is wrong throws the schema's error (the whole batch is retried and dead-lettered as one event).
 */
export const chargeItemsOf = (e: EventEnvelope): ChargeItem[] => batchItemsOf(CHARGE_BATCHES, e);

/**
 * A `streams.messages.charged` event as the per-message `streams.message.charged` events it stands for: each with the
 * item's id, trace and data, its envelope's account the item's own `accountId` (never the batch's) and its key that
 * account, as streams publishes the per-message form. The data are not copied.
 */
export const chargesOf = (e: EventEnvelope): EventEnvelope[] => perItemEvents(CHARGE_BATCHES, e);

/** A chunk with each batch of charges in it replaced by its per-message events (the chunk itself when it has none). */
export const flattenChargeBatches = (events: EventEnvelope[]): EventEnvelope[] => flattenItemsBatches(CHARGE_BATCHES, events);
