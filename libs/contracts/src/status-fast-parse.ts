import type { EventData } from './events';
import { MessageStatusChangedV1 } from './messaging-events';

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

// as zod 3 checks `z.string().uuid()`, and the contracts' decimal `id`
const UUID = /^[0-9a-fA-F]{8}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{12}$/i;
const ID = /^\d+$/;

/** A uuid as the contracts' `z.string().uuid()` accepts it: the hand-written event checks of every consumer use this. */
export const isContractUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);
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
