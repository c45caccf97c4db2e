import type { EventData, EventEnvelope } from './events';
import { batchItemsOf, flattenItemsBatches, isContractUuid, isItemsBatch, perItemEvents, type BatchedItem, type ItemsBatchKind } from './items-batch';
import { MessageStatusChangedV1, MessageStatusesChangedV1, STATUS_BATCH_MAX } from './messaging-events';

export { isContractUuid };

/**
 * `MessageStatusChangedV1.schema.parse`, written out by hand for the data that passes (docs/decisions/0160). A status
 * change is the most common event of the platform (two a message) and four groups parse it in every process (campaigns'
 * statuses, streams' status projection, the inbox's statuses, webhooks' deliveries): zod's generic walk of its 19
 * fields was about a tenth of those consumers' CPU. Every field is checked by the contract's rule, and the answer is
 * what the schema's would be: a new object with the contract's keys only, an optional key only when the data has it.
 * Anything else (a missing or wrong field, an optional key holding undefined) answers undefined, and the caller goes
 * through the schema itself, with its usual error.
 */
export type StatusChanged = EventData<typeof MessageStatusChangedV1>;

// the contracts' decimal `id`
const ID = /^\d+$/;
const STATUSES: ReadonlySet<unknown> = new Set(['accepted', 'sent', 'delivered', 'sent_failed', 'undelivered', 'no_routes', 'rejected']);

type Doc = Record<string, unknown>;
const isId = (v: unknown): v is string => typeof v === 'string' && ID.test(v);
const isText = (v: unknown): v is string => typeof v === 'string';
const isTextOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
const isIdOrNull = (v: unknown): v is string | null => v === null || isId(v);

export function fastStatusChanged(data: unknown): StatusChanged | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const d = data as Doc;
  const { messageUuid, accountId, streamId, streamUid, campaignId, sender, destination, status, outgoingStatus, error, vendorId, providerMessageId, sentAt, deliveredAt, mcc, mnc, occurredAt, possibleDuplicate, parts } = d;
  if (
    !isContractUuid(messageUuid) ||
    !isId(accountId) ||
    !isId(streamId) ||
    !isText(streamUid) ||
    !isIdOrNull(campaignId) ||
    !isText(sender) ||
    !isText(destination) ||
    !STATUSES.has(status) ||
    !isTextOrNull(outgoingStatus) ||
    !isTextOrNull(error) ||
    !isIdOrNull(vendorId) ||
    !isTextOrNull(providerMessageId) ||
    !isTextOrNull(sentAt) ||
    !isTextOrNull(deliveredAt) ||
    !isTextOrNull(mcc) ||
    !isTextOrNull(mnc) ||
    !isText(occurredAt)
  ) {
    return undefined;
  }
  const out: StatusChanged = {
    messageUuid,
    accountId,
    streamId,
    streamUid,
    campaignId,
    sender,
    destination,
    status: status as StatusChanged['status'],
    outgoingStatus,
    error,
    vendorId,
    providerMessageId,
    sentAt,
    deliveredAt,
    mcc,
    mnc,
    occurredAt,
  };
  if ('possibleDuplicate' in d) {
    if (typeof possibleDuplicate !== 'boolean') return undefined;
    out.possibleDuplicate = possibleDuplicate;
  }
  if ('parts' in d) {
    if (typeof parts !== 'number' || !Number.isInteger(parts) || parts <= 0) return undefined;
    out.parts = parts;
  }
  return out;
}

/** The schema's `parse`: the hand-written check first, the schema (and its error) for anything it does not pass. */
export function parseStatusChanged(data: unknown): StatusChanged {
  return fastStatusChanged(data) ?? MessageStatusChangedV1.schema.parse(data);
}

/** The schema's `safeParse` answer, as `parseStatusChanged`. */
export function safeParseStatusChanged(data: unknown): { success: true; data: StatusChanged } | { success: false } {
  const fast = fastStatusChanged(data);
  if (fast) return { success: true, data: fast };
  const r = MessageStatusChangedV1.schema.safeParse(data);
  return r.success ? { success: true, data: r.data } : { success: false };
}

/**
 * A `dispatch.message.statuses_changed` event as the per-message `dispatch.message.status_changed` events it stands for
 * (docs/decisions/0173): each with the item's id, trace and data, its envelope's account the item's own `accountId` (the
 * batch's envelope has none: a batch mixes accounts), so a consumer handles it as it handles the per-message form, with
 * the same claims (a redelivered batch claims the same ids) and the same per-item checks. The items' data are not
 * copied; each consumer checks them as it checks a per-message event's. A batch whose shape is wrong throws the
 * schema's error (the whole batch is retried and dead-lettered as one event would be).
 */
export function statusChangesOf(e: EventEnvelope): EventEnvelope[] {
  return perItemEvents(STATUS_BATCHES, e);
}

/**
 * The status changes of a chunk, per-message events and batches alike, without an envelope made per item: `each` gets
 * each change's event id and data (a batch item's own: its account is the data's `accountId`), in order; every other
 * event goes to `other`. A batch whose shape is wrong throws as `statusChangesOf` does. For a consumer's chunk handler
 * that takes the changes straight into its group commit (docs/decisions/0173).
 */
export function forEachStatusChange(events: EventEnvelope[], each: (id: string, data: unknown) => void, other?: (e: EventEnvelope) => void): void {
  for (const e of events) {
    if (e.type === MessageStatusChangedV1.type && e.version === MessageStatusChangedV1.version) each(e.id, e.data);
    else if (isStatusBatch(e)) {
      const items = checkedItems(e);
      for (let i = 0; i < items.length; i++) each(items[i].id, items[i].data);
    } else other?.(e);
  }
}

function checkedItems(e: EventEnvelope): BatchedItem[] {
  return batchItemsOf(STATUS_BATCHES, e);
}

/** The status changes batch as an items batch (docs/decisions/0173, 0181): its items carry no traceId (the batch's). */
export const STATUS_BATCHES: ItemsBatchKind = {
  batch: MessageStatusesChangedV1,
  one: MessageStatusChangedV1,
  max: STATUS_BATCH_MAX,
  what: 'status changes',
  key: (d) => (typeof d.messageUuid === 'string' ? d.messageUuid : ''),
  traceId: 'batch',
};

/** Whether an event is a batch of status changes this code reads (`statusChangesOf`). */
export const isStatusBatch = (e: EventEnvelope): boolean => isItemsBatch(STATUS_BATCHES, e);

/**
 * A chunk with each batch of status changes in it replaced by its per-message events (the chunk itself when it has
 * none). With `keep`, only a batch's items whose data it keeps become events: a consumer that skips most of them (the
 * inbox skips a campaign's, webhooks an account's without a webhook) makes no envelope for the rest.
 */
export function flattenStatusBatches(events: EventEnvelope[], keep?: (data: unknown) => boolean): EventEnvelope[] {
  return flattenItemsBatches(STATUS_BATCHES, events, keep);
}
