import { z } from 'zod';
import { defineEvent, Topics } from './events';
import { isDecimalId, isDecimalIdOrNull, isInt, isPlainObject, isString, isStringOf, isStringOrNull, isUuid, type Fields } from './fast-check';

/**
 * Sends that other services ask streams to make: campaign batches and inbox replies. Streams is the one pricing,
 * charging and limits path (architecture section 6): it runs every item through the same validation, blacklist and
 * opt-out, limits, pricing and charging as the stream API, stores it and emits `streams.message.accepted`, then answers
 * the whole batch with `streams.send_batch.processed` on its own topic.
 *
 * Exactly once: the requester chooses each item's `messageUuid` (for a campaign, derived from the campaign and the
 * recipient), so a batch delivered twice, or re-requested after the requester crashed, never sends an item twice;
 * streams answers an item it already accepted with `accepted` and `duplicate: true`.
 */
const id = z.string().regex(/^\d+$/, 'a decimal id');

export const SendRequestItem = z.object({
  messageUuid: z.string().uuid(),
  /** E.164 phone (SMS, WhatsApp) or Telegram chat id. */
  destination: z.string().min(1).max(64),
  /** The final text, variables and spintax already applied. */
  text: z.string().max(4096),
  /** Sender ID or number for this item; null: the stream's default sender. */
  sender: z.string().max(64).nullable(),
  /** WhatsApp template, media or buttons; opaque to streams as in the stream API. */
  payload: z.record(z.unknown()).nullable(),
  /** Do not hand to the provider before this instant (sending hours); null: now. */
  notBefore: z.string().nullable(),
  /** The requester's own reference (campaign recipient id, inbox message id), echoed in the answer. */
  ref: z.string().max(64),
  /**
   * The campaign variant the text was composed from (campaign batches; absent or null otherwise). Streams does not use
   * it but passes it through unchanged onto the item's `streams.message.accepted`, from which stats counts messages per
   * variant (docs/decisions/0046-campaign-reports.md, 0205; stats before 0205 read it from this request).
   */
  variantId: id.nullable().optional(),
});
export type SendRequestItem = z.infer<typeof SendRequestItem>;

export const SendBatch = z.object({
  /** Unique per requester; the answer carries it back. */
  batchId: z.string().min(1).max(64),
  accountId: id,
  streamId: id,
  campaignId: id.nullable(),
  /** At most 1,000 items, so a batch stays well under a Kafka message's size limit. */
  items: z.array(SendRequestItem).min(1).max(1000),
});
export type SendBatch = z.infer<typeof SendBatch>;

/**
 * `SendBatch.parse` written out by hand (`EventDefinition.fast`, docs/decisions/0192) for items without a payload (a
 * campaign's SMS, an inbox reply's text): a campaign's batch of up to 1,000 items is checked when the runner emits it
 * and again by streams and stats, and zod's walk of it was the largest part of the campaign path's validation. Anything
 * it is not sure of (a payload, a wrong field, an optional key holding undefined) answers undefined: the schema decides.
 */
export function fastSendBatch(data: unknown): SendBatch | undefined {
  if (!isPlainObject(data)) return undefined;
  const { batchId, accountId, streamId, campaignId, items } = data;
  if (!isStringOf(batchId, 1, 64) || !isDecimalId(accountId) || !isDecimalId(streamId) || !isDecimalIdOrNull(campaignId)) return undefined;
  if (!Array.isArray(items) || items.length < 1 || items.length > 1000) return undefined;
  const out = new Array<SendRequestItem>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = fastSendItem(items[i]);
    if (!item) return undefined;
    out[i] = item;
  }
  return { batchId, accountId, streamId, campaignId, items: out };
}

function fastSendItem(v: unknown): SendRequestItem | undefined {
  if (!isPlainObject(v)) return undefined;
  const { messageUuid, destination, text, sender, payload, notBefore, ref } = v;
  if (
    !isUuid(messageUuid) ||
    !isStringOf(destination, 1, 64) ||
    !isStringOf(text, 0, 4096) ||
    !(sender === null || isStringOf(sender, 0, 64)) ||
    payload !== null ||
    !isStringOrNull(notBefore) ||
    !isStringOf(ref, 0, 64)
  ) {
    return undefined;
  }
  const item: SendRequestItem = { messageUuid, destination, text, sender, payload, notBefore, ref };
  if ('variantId' in v) {
    const variantId = v.variantId;
    if (!isDecimalIdOrNull(variantId)) return undefined;
    item.variantId = variantId;
  }
  return item;
}

/** A campaign runner's batch of composed messages. */
export const CampaignSendBatchRequestedV1 = defineEvent({
  type: 'campaigns.send_batch.requested',
  version: 1,
  topic: Topics.Campaigns,
  key: (d) => d.campaignId ?? d.batchId,
  schema: SendBatch,
  fast: fastSendBatch,
});

/** An agent's reply or a new conversation's first message (one item, usually). */
export const InboxSendRequestedV1 = defineEvent({
  type: 'inbox.send_batch.requested',
  version: 1,
  topic: Topics.Inbox,
  key: (d) => d.batchId,
  schema: SendBatch,
  fast: fastSendBatch,
});

/**
 * Why streams refused an item. The first five stop a campaign (it halts with the matching reason and resumes by play
 * once fixed); the others concern the one recipient.
 */
export const SendRefusal = {
  LowBalance: 'low_balance',
  DailyLimit: 'daily_limit',
  TpsReached: 'tps_reached',
  StreamDisabled: 'stream_disabled',
  AccountDisabled: 'account_disabled',
  Blacklisted: 'blacklisted',
  OptedOut: 'opted_out',
  InvalidDestination: 'invalid_destination',
  InvalidSender: 'invalid_sender',
  BlockedKeyword: 'blocked_keyword',
  NoPrice: 'no_price',
  Invalid: 'invalid',
} as const;
export type SendRefusalValue = (typeof SendRefusal)[keyof typeof SendRefusal];

const processedSchema = z.object({
  batchId: z.string(),
  /** `campaigns` or `inbox`: which requester the answer is for. */
  requester: z.enum(['campaigns', 'inbox']),
  accountId: id,
  streamId: id,
  campaignId: id.nullable(),
  items: z.array(
    z.object({
      ref: z.string(),
      messageUuid: z.string().uuid(),
      outcome: z.enum(['accepted', 'refused']),
      /** Accepted earlier already (a repeated request). */
      duplicate: z.boolean().optional(),
      refusal: z.string().nullable(),
      /** The spec's error code (section 8) for a refused item, e.g. `0x31`. */
      code: z.string().nullable(),
      priceMicros: z.number().int().nonnegative().nullable(),
      currency: z.string().length(3).nullable(),
      segments: z.number().int().positive().nullable(),
    }),
  ),
});
type Processed = z.infer<typeof processedSchema>;
type ProcessedItem = Processed['items'][number];

/**
 * `SendBatchProcessedV1`'s schema written out by hand (`EventDefinition.fast`, docs/decisions/0192): streams' answer to
 * a campaign's batch (up to 1,000 items) is checked when streams emits it and when the runner reads it. Anything it is
 * not sure of answers undefined: the schema decides.
 */
export function fastSendBatchProcessed(data: unknown): Processed | undefined {
  if (!isPlainObject(data)) return undefined;
  const { batchId, requester, accountId, streamId, campaignId, items } = data;
  if (!isString(batchId) || (requester !== 'campaigns' && requester !== 'inbox') || !isDecimalId(accountId) || !isDecimalId(streamId) || !isDecimalIdOrNull(campaignId)) return undefined;
  if (!Array.isArray(items)) return undefined;
  const out = new Array<ProcessedItem>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = fastProcessedItem(items[i]);
    if (!item) return undefined;
    out[i] = item;
  }
  return { batchId, requester, accountId, streamId, campaignId, items: out };
}

const isCount = (v: unknown, min: number): v is number => isInt(v) && v >= min;

function fastProcessedItem(v: unknown): ProcessedItem | undefined {
  if (!isPlainObject(v)) return undefined;
  const { ref, messageUuid, outcome, duplicate, refusal, code, priceMicros, currency, segments } = v as Fields;
  if (!isString(ref) || !isUuid(messageUuid) || (outcome !== 'accepted' && outcome !== 'refused')) return undefined;
  const hasDuplicate = 'duplicate' in v;
  if (hasDuplicate && typeof duplicate !== 'boolean') return undefined;
  if (
    !isStringOrNull(refusal) ||
    !isStringOrNull(code) ||
    !(priceMicros === null || isCount(priceMicros, 0)) ||
    !(currency === null || (isString(currency) && currency.length === 3)) ||
    !(segments === null || isCount(segments, 1))
  ) {
    return undefined;
  }
  // the schema's key order: `duplicate` (when the item has it) after `outcome`
  return hasDuplicate
    ? { ref, messageUuid, outcome, duplicate: duplicate as boolean, refusal, code, priceMicros, currency, segments }
    : { ref, messageUuid, outcome, refusal, code, priceMicros, currency, segments };
}

export const SendBatchProcessedV1 = defineEvent({
  type: 'streams.send_batch.processed',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.campaignId ?? d.batchId,
  schema: processedSchema,
  fast: fastSendBatchProcessed,
});

export const SendRequestEvents = [CampaignSendBatchRequestedV1, InboxSendRequestedV1, SendBatchProcessedV1] as const;
