import { isContractUuid, MessageAcceptedV1, MessageRefundedV1, MessageStatusChangedV1, type EventData, type EventEnvelope } from '@switchboard/contracts';

/**
 * Checks of the three events the rollups take most of (an acceptance, a status change, a refund), compiled by hand:
 * the fields the rollups read, with the contract's rules for them (docs/decisions/0055, "Ingest"). zod's `parse`
 * copied every event into a new object and walked every field, about a fifth of the consumer's CPU and much of its
 * garbage. An event that fails a check goes through the contract's zod schema, which throws its usual error (the
 * event is retried and dead-lettered as before); the fields the rollups do not read are not checked here.
 */
const ID = /^\d+$/;
const STATUSES: ReadonlySet<unknown> = new Set(['accepted', 'sent', 'delivered', 'sent_failed', 'undelivered', 'no_routes', 'rejected']);

type Doc = Record<string, unknown>;
const isId = (v: unknown): boolean => typeof v === 'string' && ID.test(v);
const isUuid = isContractUuid;
const isCount = (v: unknown, min: number): boolean => typeof v === 'number' && Number.isInteger(v) && v >= min;
const isCurrency = (v: unknown): boolean => typeof v === 'string' && v.length === 3;

function accepted(d: Doc): boolean {
  return (
    isUuid(d.messageUuid) &&
    isId(d.accountId) &&
    isId(d.streamId) &&
    typeof d.sender === 'string' &&
    typeof d.destination === 'string' &&
    (d.iso2 === null || (typeof d.iso2 === 'string' && d.iso2.length === 2)) &&
    isCount(d.segments, 1) &&
    isCount(d.priceMicros, 0) &&
    isCurrency(d.currency) &&
    (d.campaignId === null || isId(d.campaignId)) &&
    (d.variantId === undefined || d.variantId === null || isId(d.variantId)) &&
    typeof d.acceptedAt === 'string'
  );
}

function status(d: Doc): boolean {
  return isUuid(d.messageUuid) && isId(d.accountId) && isId(d.streamId) && typeof d.sender === 'string' && STATUSES.has(d.status) && (d.parts === undefined || isCount(d.parts, 1));
}

function refund(d: Doc): boolean {
  return isUuid(d.messageUuid) && isId(d.accountId) && isCount(d.amountMicros, 0) && isCurrency(d.currency);
}

const doc = (e: EventEnvelope): Doc | null => (typeof e.data === 'object' && e.data !== null ? (e.data as Doc) : null);

export function parseAccepted(e: EventEnvelope): EventData<typeof MessageAcceptedV1> {
  return parseAcceptedData(e.data);
}

/** An acceptance's data alone (an accepted batch's item: no envelope of its own to build for the check). */
export function parseAcceptedData(data: unknown): EventData<typeof MessageAcceptedV1> {
  const d = typeof data === 'object' && data !== null ? (data as Doc) : null;
  return d && accepted(d) ? (d as unknown as EventData<typeof MessageAcceptedV1>) : MessageAcceptedV1.schema.parse(data);
}

export function parseStatus(e: EventEnvelope): EventData<typeof MessageStatusChangedV1> {
  const d = doc(e);
  return d && status(d) ? (d as unknown as EventData<typeof MessageStatusChangedV1>) : MessageStatusChangedV1.schema.parse(e.data);
}

export function parseRefund(e: EventEnvelope): EventData<typeof MessageRefundedV1> {
  const d = doc(e);
  return d && refund(d) ? (d as unknown as EventData<typeof MessageRefundedV1>) : MessageRefundedV1.schema.parse(e.data);
}
