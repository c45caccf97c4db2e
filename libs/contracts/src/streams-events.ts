import { z } from 'zod';
import { defineEvent, Topics } from './events';

/**
 * Events of the streams service (topic `switchboard.streams`) besides the send pipeline's (`messaging-events.ts`).
 * Stream, sender and stream-event events carry the whole snapshot, so a consumer's read model is an upsert
 * (campaigns keeps senders, inbox and stats keep stream names). Provider settings and secrets are not in the stream
 * snapshot: they travel to dispatch only, in `streams.stream.channel_configured` (messaging-events.ts).
 */
const id = z.string().regex(/^\d+$/, 'a decimal id');

/** Spec section 4: stream status. */
export const StreamStatus = { Restricted: -10, Disabled: -1, Ready: 0, Sending: 1, Draft: 2 } as const;
export type StreamStatusValue = (typeof StreamStatus)[keyof typeof StreamStatus];

/** Spec section 4: sender approval. */
export const SenderApproval = { Pending: 0, Approved: 1, Declined: 2 } as const;
export type SenderApprovalValue = (typeof SenderApproval)[keyof typeof SenderApproval];

/** Spec section 3: sender type. */
export const SenderType = { InboundOutbound: 'inbound-outbound', InboundOnly: 'inbound-only', OutboundOnly: 'outbound-only' } as const;
export type SenderTypeValue = (typeof SenderType)[keyof typeof SenderType];

/**
 * The six decline reasons of spec section 4 (texts not shown there; see docs/decisions/0014-streams.md). The key
 * travels; the console translates it.
 */
export const SenderDeclineReason = {
  BrandMismatch: 'brand_mismatch',
  GenericName: 'generic_name',
  Impersonation: 'impersonation',
  MisleadingContent: 'misleading_content',
  MissingDocuments: 'missing_documents',
  CountryRestriction: 'country_restriction',
} as const;
export const SENDER_DECLINE_REASONS = Object.values(SenderDeclineReason);
export type SenderDeclineReasonValue = (typeof SenderDeclineReason)[keyof typeof SenderDeclineReason];

export const StreamSnapshot = z.object({
  streamId: id,
  accountId: id,
  streamUid: z.string().uuid(),
  name: z.string(),
  streamType: z.number().int(),
  status: z.number().int(),
  staticServiceType: z.string().nullable(),
  /** Default sender of the stream (SMS sender ID or phone). */
  sender: z.string().nullable(),
  enableSending: z.boolean(),
  isDefault: z.boolean(),
  /**
   * The stream's own sending rate (`params.tps`) in messages per second, which dispatch paces the stream at inside the
   * account's TPS; 0: none (the account's and the vendor connection's limits alone). Events from before the field read 0.
   */
  tps: z.number().int().min(0).default(0),
  updatedAt: z.string(),
});
export type StreamSnapshot = z.infer<typeof StreamSnapshot>;

export const StreamCreatedV1 = defineEvent({ type: 'streams.stream.created', version: 1, topic: Topics.Streams, key: (d) => d.streamId, schema: StreamSnapshot });
export const StreamUpdatedV1 = defineEvent({ type: 'streams.stream.updated', version: 1, topic: Topics.Streams, key: (d) => d.streamId, schema: StreamSnapshot });
export const StreamDeletedV1 = defineEvent({
  type: 'streams.stream.deleted',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.streamId,
  schema: z.object({ streamId: id, accountId: id, streamUid: z.string().uuid() }),
});

export const SenderSnapshot = z.object({
  senderId: id,
  accountId: id,
  name: z.string(),
  value: z.string(),
  type: z.string(),
  country: z.string().nullable(),
  approved: z.number().int(),
  declinedReason: z.string().nullable(),
});
export type SenderSnapshot = z.infer<typeof SenderSnapshot>;

/** Created, edited, approved or declined. */
export const SenderChangedV1 = defineEvent({ type: 'streams.sender.changed', version: 1, topic: Topics.Streams, key: (d) => d.senderId, schema: SenderSnapshot });
export const SenderDeletedV1 = defineEvent({
  type: 'streams.sender.deleted',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.senderId,
  schema: z.object({ senderId: id, accountId: id }),
});

/** A stream event (spec 3: id, name, text, eventKey, active, stream) was created or edited; campaigns link to them. */
export const StreamEventChangedV1 = defineEvent({
  type: 'streams.stream_event.changed',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.streamEventId,
  schema: z.object({ streamEventId: id, accountId: id, streamId: id, name: z.string(), text: z.string(), eventKey: z.string(), active: z.boolean() }),
});
export const StreamEventDeletedV1 = defineEvent({
  type: 'streams.stream_event.deleted',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.streamEventId,
  schema: z.object({ streamEventId: id, accountId: id }),
});

/** The global malicious keyword list changed; carries the whole list (it is small), so consumers replace theirs. */
export const MaliciousKeywordsChangedV1 = defineEvent({
  type: 'streams.malicious_keywords.changed',
  version: 1,
  topic: Topics.Streams,
  key: () => 'global',
  schema: z.object({ keywords: z.array(z.object({ id, word: z.string(), type: z.number().int() })) }),
});

/** Money given back for a charged message dispatch could not send (after `dispatch.message.refund_due`). */
export const MessageRefundedV1 = defineEvent({
  type: 'streams.message.refunded',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.accountId,
  schema: z.object({
    messageUuid: z.string().uuid(),
    accountId: id,
    amountMicros: z.number().int().nonnegative(),
    currency: z.string().length(3),
    balanceAfterMicros: z.number().int(),
    reason: z.string(),
  }),
});

/** An OTP code was verified on a stream (webhooks may forward it). */
export const OtpVerifiedV1 = defineEvent({
  type: 'streams.otp.verified',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.streamId,
  schema: z.object({ otpId: id, accountId: id, streamId: id, destination: z.string(), verifiedAt: z.string() }),
});

export const StreamsEvents = [
  StreamCreatedV1,
  StreamUpdatedV1,
  StreamDeletedV1,
  SenderChangedV1,
  SenderDeletedV1,
  StreamEventChangedV1,
  StreamEventDeletedV1,
  MaliciousKeywordsChangedV1,
  MessageRefundedV1,
  OtpVerifiedV1,
] as const;
