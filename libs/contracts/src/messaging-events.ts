import { z } from 'zod';
import { defineEvent, Topics } from './events';
import { fastItemsBatch, itemsBatchSchema } from './items-batch';
import { isDecimalId, isDecimalIdOrNull, isInt, isPlainObject, isString, isStringOrNull, isUuid } from './fast-check';

/**
 * The messaging pipeline. `streams` is the front door: it validates, checks limits, prices and charges a send, stores
 * it durably and emits `streams.message.accepted`. `dispatch` routes it to a vendor, sends it over the provider's
 * protocol and follows it to a final status, emitting status changes, cost/delivery records (EDR) and incoming
 * messages, which streams, webhooks, inbox and stats consume. Amounts are micro-units (1e-6) of `currency`.
 */
const id = z.string().regex(/^\d+$/, 'a decimal id');

export const StreamType = { Marketing: 1, Transactional: 2, Otp: 3, TwoWay: 4, WhatsApp: 5, TelegramBot: 7, TelegramPrivate: 8 } as const;
export type StreamTypeValue = (typeof StreamType)[keyof typeof StreamType];

export const Channel = { Sms: 'sms', WhatsApp: 'whatsapp', Telegram: 'telegram', TelegramPrivate: 'telegram_private' } as const;
const channel = z.enum([Channel.Sms, Channel.WhatsApp, Channel.Telegram, Channel.TelegramPrivate]);

/** Spec section 4: message status. Final statuses never move back. */
export const MessageStatus = {
  Accepted: 'accepted',
  Sent: 'sent',
  Delivered: 'delivered',
  SentFailed: 'sent_failed',
  Undelivered: 'undelivered',
  NoRoutes: 'no_routes',
  Rejected: 'rejected',
} as const;
export type MessageStatusValue = (typeof MessageStatus)[keyof typeof MessageStatus];
const messageStatus = z.enum([
  MessageStatus.Accepted,
  MessageStatus.Sent,
  MessageStatus.Delivered,
  MessageStatus.SentFailed,
  MessageStatus.Undelivered,
  MessageStatus.NoRoutes,
  MessageStatus.Rejected,
]);

/** Spec section 4: outgoing status (WhatsApp/Telegram and the inbox view). */
export const OutgoingStatus = {
  Sending: 'sending',
  Sent: 'sent',
  Failed: 'failed',
  Delivered: 'delivered',
  Undelivered: 'undelivered',
  Read: 'read',
  FailedNotAuth: 'failedNotAuth',
} as const;

export const SmsEncoding = { Gsm7: 'GSM7', Ucs2: 'UCS2' } as const;

const CHANNELS: ReadonlySet<unknown> = new Set(Object.values(Channel));

/**
 * `MessageAcceptedV1`'s schema written out by hand (`EventDefinition.fast`, docs/decisions/0192) for a message without
 * a payload (an SMS of a campaign or of the stream API): every campaign message is parsed by dispatch's intake and
 * accounts' usage, and zod's object walk of its 18 fields was the larger part of those parses' CPU and garbage. A
 * payload (WhatsApp), or anything else it is not sure of, answers undefined: the schema decides.
 */
function fastAccepted(data: unknown): AcceptedData | undefined {
  if (!isPlainObject(data)) return undefined;
  const { messageUuid, accountId, streamId, streamUid, streamType, channel, sender, destination, iso2, text, encoding, segments, priceMicros, currency, payload, campaignId, notBefore, acceptedAt } = data;
  if (
    !isUuid(messageUuid) ||
    !isDecimalId(accountId) ||
    !isDecimalId(streamId) ||
    !isString(streamUid) ||
    !isInt(streamType) ||
    !CHANNELS.has(channel) ||
    !isString(sender) ||
    !isString(destination) ||
    !(iso2 === null || (isString(iso2) && iso2.length === 2)) ||
    !isString(text) ||
    !(encoding === null || encoding === SmsEncoding.Gsm7 || encoding === SmsEncoding.Ucs2) ||
    !isInt(segments) ||
    segments <= 0 ||
    !isInt(priceMicros) ||
    priceMicros < 0 ||
    !(isString(currency) && currency.length === 3) ||
    payload !== null ||
    !isDecimalIdOrNull(campaignId) ||
    !isStringOrNull(notBefore) ||
    !isString(acceptedAt)
  ) {
    return undefined;
  }
  const out: AcceptedData = {
    messageUuid,
    accountId,
    streamId,
    streamUid,
    streamType,
    channel: channel as AcceptedData['channel'],
    sender,
    destination,
    iso2,
    text,
    encoding,
    segments,
    priceMicros,
    currency,
    payload,
    campaignId,
    notBefore,
    acceptedAt,
  };
  if ('variantId' in data) {
    const variantId = data.variantId;
    if (!isDecimalIdOrNull(variantId)) return undefined;
    out.variantId = variantId;
  }
  return out;
}

const acceptedSchema = z.object({
    messageUuid: z.string().uuid(),
    accountId: id,
    streamId: id,
    streamUid: z.string(),
    streamType: z.number().int(),
    channel,
    /** Sender ID or phone (SMS), phone number id (WhatsApp), bot (Telegram). */
    sender: z.string(),
    /** E.164 for SMS/WhatsApp, chat id for Telegram. */
    destination: z.string(),
    iso2: z.string().length(2).nullable(),
    text: z.string(),
    encoding: z.enum([SmsEncoding.Gsm7, SmsEncoding.Ucs2]).nullable(),
    segments: z.number().int().positive(),
    priceMicros: z.number().int().nonnegative(),
    currency: z.string().length(3),
    /** WhatsApp template or media sends; opaque to streams, interpreted by the adapter. */
    payload: z.record(z.unknown()).nullable(),
    campaignId: id.nullable(),
    /** Send no earlier than this (sending hours); null = now. */
    notBefore: z.string().nullable(),
    acceptedAt: z.string(),
    /**
     * The campaign variant the text was composed from: the send-batch request item's `variantId`, passed through by
     * streams unchanged (absent for the stream API and from streams before docs/decisions/0205). Statistics counts a
     * campaign message per variant from it (0205); nothing else reads it.
     */
    variantId: id.nullable().optional(),
});
type AcceptedData = z.infer<typeof acceptedSchema>;

/** A send passed validation, limits and charging in streams and is durably queued for dispatch. */
export const MessageAcceptedV1 = defineEvent({
  type: 'streams.message.accepted',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.messageUuid,
  schema: acceptedSchema,
  fast: fastAccepted,
});

/** The most accepted messages one `streams.messages.accepted` event carries (about 600 B to a few KB each as JSON). */
export const ACCEPT_BATCH_MAX = 500;

/**
 * The accepted messages of one of streams' send batches (an `accept_messages` call) for one account, as one event
 * instead of a `streams.message.accepted` each (docs/decisions/0181): each item is exactly the per-message event it
 * stands for, its id (`id`, what dispatch stores as the message's event id and accounts' usage claims), its trace
 * (`traceId`, `traceparent`) and its data, with its own `accountId`. Streams folds a batch by account, so the envelope's
 * `accountId` is the items' account; a consumer still takes each item's account from the item and fails an item that
 * names another (a poison item, not the batch's others). Consumers take it with `acceptedOf` and accept the per-message
 * form too (streams' undispatched sweeper still re-publishes a message's per-message event under its first id); streams
 * emits this form only with `acceptBatches` on (`STREAMS_ACCEPT_BATCHES`, off by default: every streams and consumer
 * process first).
 */
export const MessagesAcceptedV1 = defineEvent({
  type: 'streams.messages.accepted',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.items[0]?.data.accountId ?? '',
  schema: itemsBatchSchema(MessageAcceptedV1.schema, ACCEPT_BATCH_MAX),
  fast: fastItemsBatch(fastAccepted, ACCEPT_BATCH_MAX),
});

/** Namespace of the accepted event's id: `uuidV5(messageUuid, ACCEPTED_EVENT_NAMESPACE)` (docs/decisions/0087). */
export const ACCEPTED_EVENT_NAMESPACE = '5f0c3a1e-8d2b-4c6f-9a47-2e1b7d9c0a35';

/**
 * The envelope `source` of streams' undispatched sweeper's re-publishes (docs/decisions/0087, 0199): a message's
 * `streams.message.accepted` published again, under its first id, because dispatch never got it. It is the same
 * message, already counted in the daily usage when its first event (a per-message event or an item of a
 * `streams.messages.accepted` batch) came: accounts takes a re-publish for dispatch only. Older accounts, which claim
 * each message's id, ignore the source and take it once as before.
 */
export const ACCEPTED_REPUBLISH_SOURCE = 'streams.undispatched';

/** Most message uuids in one reconcile request or answer. */
export const RECONCILE_BATCH_MAX = 1000;

/**
 * Streams asks dispatch which of these messages it has: its messages still `accepted` (no status from dispatch) long
 * after acceptance (docs/decisions/0087). Keyed by account, so one account's requests stay in order; every uuid is
 * a message of `accountId`, and dispatch answers only about that account's messages.
 */
export const MessagesReconcileRequestedV1 = defineEvent({
  type: 'streams.messages.reconcile_requested',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.accountId,
  schema: z.object({
    requestId: z.string().uuid(),
    accountId: id,
    messageUuids: z.array(z.string().uuid()).min(1).max(RECONCILE_BATCH_MAX),
  }),
});

/**
 * Dispatch's answer to a reconcile request: the messages of the account it has (with their status and send state),
 * and those it never got, which streams publishes again (`streams.message.accepted` under its first event id).
 */
export const MessagesReconciledV1 = defineEvent({
  type: 'dispatch.messages.reconciled',
  version: 1,
  topic: Topics.Dispatch,
  key: (d) => d.accountId,
  schema: z.object({
    requestId: z.string().uuid(),
    accountId: id,
    known: z.array(z.object({ messageUuid: z.string().uuid(), status: messageStatus, sendState: z.string() })).max(RECONCILE_BATCH_MAX),
    unknown: z.array(z.string().uuid()).max(RECONCILE_BATCH_MAX),
  }),
});

/**
 * Campaigns asks dispatch for the statuses of its recipients' messages that were accepted and have no final status long
 * after (their status events deleted by a broker's retention, or skipped by an offset reset, before campaigns read
 * them: docs/decisions/0093). One campaign of one account per request; dispatch answers only about that account's
 * messages. Keyed by account.
 */
export const CampaignStatusesRequestedV1 = defineEvent({
  type: 'campaigns.statuses.reconcile_requested',
  version: 1,
  topic: Topics.Campaigns,
  key: (d) => d.accountId,
  schema: z.object({
    requestId: z.string().uuid(),
    accountId: id,
    campaignId: id,
    messageUuids: z.array(z.string().uuid()).min(1).max(RECONCILE_BATCH_MAX),
  }),
});

/**
 * Dispatch's answer to `campaigns.statuses.reconcile_requested`: the current status of each named message of the
 * account it has, and the uuids it does not have (streams' undispatched sweeper, 0087, sends those). Campaigns applies
 * the statuses as it applies status events: only forward, so a repeated answer or a late event counts nothing.
 */
export const CampaignStatusesReconciledV1 = defineEvent({
  type: 'dispatch.statuses.reconciled',
  version: 1,
  topic: Topics.Dispatch,
  key: (d) => d.accountId,
  schema: z.object({
    requestId: z.string().uuid(),
    accountId: id,
    campaignId: id,
    statuses: z.array(z.object({ messageUuid: z.string().uuid(), status: messageStatus })).max(RECONCILE_BATCH_MAX),
    unknown: z.array(z.string().uuid()).max(RECONCILE_BATCH_MAX),
  }),
});

/** The status of a message moved forward. Emitted once per actual change; duplicates and regressions are dropped. */
export const MessageStatusChangedV1 = defineEvent({
  type: 'dispatch.message.status_changed',
  version: 1,
  topic: Topics.Dispatch,
  key: (d) => d.messageUuid,
  schema: z.object({
    messageUuid: z.string().uuid(),
    accountId: id,
    streamId: id,
    streamUid: z.string(),
    campaignId: id.nullable(),
    sender: z.string(),
    destination: z.string(),
    status: messageStatus,
    outgoingStatus: z.string().nullable(),
    error: z.string().nullable(),
    vendorId: id.nullable(),
    providerMessageId: z.string().nullable(),
    sentAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    mcc: z.string().nullable(),
    mnc: z.string().nullable(),
    occurredAt: z.string(),
    /** Added by dispatch: the message may have reached the provider twice (resent after a crash or a submit timeout). */
    possibleDuplicate: z.boolean().optional(),
    /** Added by dispatch: parts put on the wire (SMS concatenation), once known. */
    parts: z.number().int().positive().optional(),
  }),
});

/** The most status changes one `dispatch.message.statuses_changed` event carries (about 700 B each as JSON). */
export const STATUS_BATCH_MAX = 500;

/**
 * The status changes of one of dispatch's write batches (a group commit of sends or receipts) as one event, instead of a
 * `dispatch.message.status_changed` each (docs/decisions/0173): each item is exactly the per-message event it stands
 * for, its id (`id`, what consumers claim and webhooks send as the webhook id), its trace (`traceparent`) and its data,
 * with its own `accountId`. A batch mixes accounts: the envelope's `accountId` is null, and a consumer takes each item's
 * account from the item, never from the batch. Consumers take it with `statusChangesOf` (one per-message envelope per
 * item) and accept the per-message form too; dispatch emits this form only with `statusBatches` on (expand-only: every
 * consumer first, then dispatch).
 */
export const MessageStatusesChangedV1 = defineEvent({
  type: 'dispatch.message.statuses_changed',
  version: 1,
  topic: Topics.Dispatch,
  key: (d) => d.items[0]?.data.messageUuid ?? '',
  schema: itemsBatchSchema(MessageStatusChangedV1.schema, STATUS_BATCH_MAX),
});

/** Cost and delivery record, once a message reached a final status (webhook trigger "EDR info"). */
export const MessageEdrV1 = defineEvent({
  type: 'dispatch.message.edr_recorded',
  version: 1,
  topic: Topics.Dispatch,
  key: (d) => d.messageUuid,
  schema: z.object({
    messageUuid: z.string().uuid(),
    accountId: id,
    streamId: id,
    streamUid: z.string(),
    campaignId: id.nullable(),
    sender: z.string(),
    destination: z.string(),
    status: messageStatus,
    sentAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    mcc: z.string().nullable(),
    mnc: z.string().nullable(),
    network: z.string().nullable(),
    messageLength: z.number().int().nonnegative(),
    messagePartsCount: z.number().int().positive(),
    utf8: z.boolean(),
    costMicros: z.number().int().nonnegative(),
    rateMicros: z.number().int().nonnegative(),
    currency: z.string().length(3),
  }),
});

/** A message that streams charged for and dispatch could not send (no route, rejected): streams refunds it. */
export const MessageRefundDueV1 = defineEvent({
  type: 'dispatch.message.refund_due',
  version: 1,
  topic: Topics.Dispatch,
  key: (d) => d.messageUuid,
  schema: z.object({ messageUuid: z.string().uuid(), accountId: id, amountMicros: z.number().int().nonnegative(), currency: z.string().length(3), reason: z.string() }),
});

/** An inbound message (two-way SMS, WhatsApp, Telegram) for the inbox and webhooks. */
export const MessageReceivedV1 = defineEvent({
  type: 'dispatch.message.received',
  version: 1,
  topic: Topics.Dispatch,
  key: (d) => `${d.accountId}:${d.contactPhone}`,
  schema: z.object({
    messageUuid: z.string().uuid(),
    accountId: id,
    streamId: id,
    streamUid: z.string(),
    streamType: z.number().int(),
    channel,
    /** Our number / bot / phone number id (spec payload: account_phone). */
    accountPhone: z.string(),
    /** The sender (spec payload: contact_phone); a chat id for Telegram. */
    contactPhone: z.string(),
    contactName: z.string().nullable(),
    messageType: z.string(),
    body: z.string(),
    media: z.record(z.unknown()).nullable(),
    receivedAt: z.string(),
  }),
});

/** Charged when accepted (streams): dispatch's status events let accounts and stats follow spend. */
export const MessageChargedV1 = defineEvent({
  type: 'streams.message.charged',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.accountId,
  schema: z.object({ messageUuid: z.string().uuid(), accountId: id, amountMicros: z.number().int(), currency: z.string().length(3), balanceAfterMicros: z.number().int() }),
});

/** The most charges one `streams.messages.charged` event carries (about 300 B each as JSON). */
export const CHARGE_BATCH_MAX = 500;

/**
 * The charges of one of streams' send batches (an `accept_messages` call) for one account, as one event instead of a
 * `streams.message.charged` each (docs/decisions/0178): each item is exactly the per-message event it stands for, its
 * id (`id`, what the ledger's dead letters and logs name), its trace (`traceId`, `traceparent`) and its data, with its
 * own `accountId`. Streams folds a batch by account, so the envelope's `accountId` is the items' account; a consumer
 * still takes each item's account from the item and fails an item that names another than its envelope (a poison item,
 * not the batch's others). Consumers take it with `chargesOf` and accept the per-message form too; streams emits this
 * form with `chargeBatches` on (`STREAMS_CHARGE_BATCHES`, the default; off while an accounts process older than 0178 runs).
 */
export const MessagesChargedV1 = defineEvent({
  type: 'streams.messages.charged',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.items[0]?.data.accountId ?? '',
  schema: itemsBatchSchema(MessageChargedV1.schema, CHARGE_BATCH_MAX),
});

/**
 * A stream's provider settings, for dispatch: the one event that carries them (the stream snapshot events do not).
 * Emitted by streams through its outbox, in the transaction of the change, when a two-way, WhatsApp, Telegram bot or
 * Telegram private stream is created, deleted (`enabled: false`), or changes what this event carries (provider
 * settings, sender, enabled). Dispatch keeps the latest per stream to send with the stream's credentials, to register
 * Telegram webhooks, to start the Telegram private login and to match inbound messages (a bot, a phone number id, a
 * two-way number) to their account and stream. `enabled` is false for deleted, disabled and restricted streams; a
 * draft is enabled (a Telegram private stream is a draft until its login completes).
 * `credentials` carries only what is not secret (keys that are set): `businessId` (WhatsApp: the stream's business
 * account), `phone` (Telegram private). The secrets, `accessToken` and `verifyToken` (WhatsApp: the stream's token and
 * the webhook verify token the console shows) and `botToken` (Telegram bot), travel only in `sealedCredentials`:
 * `ProviderSecrets.seal(streamUid, {...})` of libs/platform, AES-256-GCM under `PROVIDER_SECRETS_KEY`, which dispatch
 * opens in memory when it calls the provider (docs/decisions/0021-inbound-ownership-and-provider-secrets.md). Events
 * written before version 0.3 had them in `credentials`; a consumer takes a secret from there never again.
 */
export const StreamChannelConfiguredV1 = defineEvent({
  type: 'streams.stream.channel_configured',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.streamId,
  schema: z.object({
    accountId: id,
    streamId: id,
    streamUid: z.string(),
    streamType: z.number().int(),
    channel,
    /** Two-way number (SMS), phone number id (WhatsApp), the stream's sender or uid (Telegram bot and private). */
    sender: z.string(),
    credentials: z.record(z.string()),
    /** The provider secrets, sealed for this stream (null or absent: none). */
    sealedCredentials: z.string().nullable().optional(),
    enabled: z.boolean(),
    occurredAt: z.string(),
  }),
});

/**
 * Telegram private (a user account over MTProto): streams collects the login code in its OTP step. Dispatch asks
 * Telegram for a code when a telegram_private stream is configured (`dispatch.telegram_auth.code_requested`),
 * streams sends the code (and the 2FA password when the account has one), dispatch signs in and answers with
 * `dispatch.telegram_auth.completed`; streams then moves the stream from draft to ready.
 */
export const TelegramCodeRequestedV1 = defineEvent({
  type: 'dispatch.telegram_auth.code_requested',
  version: 1,
  topic: Topics.Dispatch,
  key: (d) => d.streamId,
  schema: z.object({ accountId: id, streamId: id, streamUid: z.string(), phone: z.string(), error: z.string().nullable() }),
});

export const TelegramCodeSubmittedV1 = defineEvent({
  type: 'streams.telegram_auth.code_submitted',
  version: 1,
  topic: Topics.Streams,
  key: (d) => d.streamId,
  schema: z.object({
    accountId: id,
    streamId: id,
    streamUid: z.string(),
    /** Empty: the code and password travel in `sealed` (`ProviderSecrets.seal(streamUid, { code, password })`). */
    code: z.string(),
    password: z.string().nullable(),
    sealed: z.string().nullable().optional(),
  }),
});

export const TelegramAuthCompletedV1 = defineEvent({
  type: 'dispatch.telegram_auth.completed',
  version: 1,
  topic: Topics.Dispatch,
  key: (d) => d.streamId,
  schema: z.object({
    accountId: id,
    streamId: id,
    streamUid: z.string(),
    ok: z.boolean(),
    /** null on success; PASSWORD_NEEDED asks streams for the 2FA password, anything else is a failure reason. */
    error: z.string().nullable(),
  }),
});

export const MessagingEvents = [
  MessageAcceptedV1,
  MessagesAcceptedV1,
  MessagesReconcileRequestedV1,
  MessagesReconciledV1,
  CampaignStatusesRequestedV1,
  CampaignStatusesReconciledV1,
  MessageStatusChangedV1,
  MessageStatusesChangedV1,
  MessageEdrV1,
  MessageRefundDueV1,
  MessageReceivedV1,
  MessageChargedV1,
  MessagesChargedV1,
  StreamChannelConfiguredV1,
  TelegramCodeRequestedV1,
  TelegramCodeSubmittedV1,
  TelegramAuthCompletedV1,
] as const;
