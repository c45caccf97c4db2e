import { z } from 'zod';
import { defineEvent, Topics } from './events';

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
   * The campaign variant the text was composed from (campaign batches; absent or null otherwise). Not used by streams:
   * stats reads it from the request to count messages per variant (docs/decisions/0046-campaign-reports.md).
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

/** A campaign runner's batch of composed messages. */
export const CampaignSendBatchRequestedV1 = defineEvent({
  type: 'campaigns.send_batch.requested',
  version: 1,
  topic: Topics.Campaigns,
  key: (d) => d.campaignId ?? d.batchId,
  schema: SendBatch,
});

/** An agent's reply or a new conversation's first message (one item, usually). */
export const InboxSendRequestedV1 = defineEvent({
  type: 'inbox.send_batch.requested',
  version: 1,
  topic: Topics.Inbox,
  key: (d) => d.batchId,
  schema: SendBatch,
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

export const SendBatchProcessedV1 = defineEvent({
  type: 'streams.send_batch.processed',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.campaignId ?? d.batchId,
  schema: z.object({
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
  }),
});

export const SendRequestEvents = [CampaignSendBatchRequestedV1, InboxSendRequestedV1, SendBatchProcessedV1] as const;
