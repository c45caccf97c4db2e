import {
  LinkClickedV1,
  MessageEdrV1,
  MessageReceivedV1,
  MessageStatusChangedV1,
  safeParseStatusChanged,
  WebhookTrigger,
  type EventData,
  type EventEnvelope,
  type WebhookParams,
  type WebhookTriggerValue,
} from '@switchboard/contracts';

/** What a consumed event becomes: the trigger it fires, the stream it belongs to (for the filter), and a payload per webhook's params. */
export interface TriggerEvent {
  trigger: WebhookTriggerValue;
  streamId: string | null;
  build: (params: WebhookParams) => Record<string, unknown>;
}

const num = (id: string | null): number | null => (id === null ? null : Number(id));
const money = (micros: number): number => micros / 1_000_000;

/** Spec 3 payload example: status change. */
export function statusPayload(d: EventData<typeof MessageStatusChangedV1> | EventData<typeof MessageEdrV1>): Record<string, unknown> {
  return {
    type: 'message_status_change',
    portal_id: Number(d.accountId),
    stream_uuid: d.streamUid,
    message_uuid: d.messageUuid,
    sender: d.sender,
    destination: d.destination,
    sent_at: d.sentAt,
    delivered_at: d.deliveredAt,
    status: d.status,
    mcc: d.mcc,
    mnc: d.mnc,
  };
}

/** Spec 3 payload example: cost and delivery record (the status change's fields and the cost). */
export function edrPayload(d: EventData<typeof MessageEdrV1>): Record<string, unknown> {
  return {
    ...statusPayload(d),
    type: 'edr_info',
    network: d.network,
    message_length: d.messageLength,
    message_parts_count: d.messagePartsCount,
    utf8: d.utf8,
    cost: money(d.costMicros),
    rate: money(d.rateMicros),
    currency: d.currency,
  };
}

/** Spec 3 payload example: incoming message. `conversation_*` are null until the inbox service feeds them. */
export function incomingPayload(d: EventData<typeof MessageReceivedV1>, p: WebhookParams): Record<string, unknown> {
  return {
    type: 'incoming_message',
    portal_id: Number(d.accountId),
    stream_uuid: d.streamUid,
    account_phone: d.accountPhone,
    contact_phone: d.contactPhone,
    ...(p.include_contact_details ? { contact_name: d.contactName } : {}),
    conversation_uuid: null,
    conversation_metadata: null,
    message_uuid: d.messageUuid,
    received_at: d.receivedAt,
    message_type: d.messageType,
    content: p.include_message_text ? { body: d.body, ...(d.media ? { media: d.media } : {}) } : {},
  };
}

/** Short URL click (links.link.clicked): no payload example in the spec; field names follow the others. */
export function clickPayload(d: EventData<typeof LinkClickedV1>, p: WebhookParams): Record<string, unknown> {
  return {
    type: 'short_url_click',
    portal_id: Number(d.accountId),
    click_id: d.clickId,
    short_url: d.shortUrl,
    original_url: d.originalUrl,
    offer_id: num(d.offerId),
    campaign_id: num(d.campaignId),
    message_uuid: d.messageUuid,
    ...(p.include_contact_details ? { destination: d.destination, ip: d.ip, user_agent: d.userAgent } : {}),
    ...(p.include_lead_id ? { lead_id: d.destination } : {}),
    clicked_at: d.clickedAt,
  };
}

function parse<T>(def: { type: string; version: number; schema: { safeParse: (v: unknown) => { success: true; data: T } | { success: false } } }, e: EventEnvelope): T | null {
  if (e.type !== def.type || e.version !== def.version) return null;
  const r = def.schema.safeParse(e.data);
  return r.success ? r.data : null;
}

/** The trigger an event of this type fires, known before its data is parsed; undefined for a type no webhook follows. */
const TRIGGER_OF_TYPE: ReadonlyMap<string, WebhookTriggerValue> = new Map<string, WebhookTriggerValue>([
  [MessageStatusChangedV1.type, WebhookTrigger.MessageStatusChange],
  [MessageEdrV1.type, WebhookTrigger.EdrInfo],
  [MessageReceivedV1.type, WebhookTrigger.IncomingMessage],
  [LinkClickedV1.type, WebhookTrigger.ShortUrlClicks],
]);

/**
 * The trigger `triggerFor` would answer for an event that parses, from its type alone: the webhooks consumer asks
 * whether the account has a webhook for it before parsing the event (most accounts have none, docs/decisions/0160).
 */
export function triggerOfType(type: string): WebhookTriggerValue | undefined {
  return TRIGGER_OF_TYPE.get(type);
}

/** The trigger an event fires, or null for an event no webhook follows (or one that does not parse). */
export function triggerFor(e: EventEnvelope): TriggerEvent | null {
  const status = e.type === MessageStatusChangedV1.type && e.version === MessageStatusChangedV1.version ? safeParseStatusChanged(e.data) : null;
  if (status?.success) {
    const s = status.data;
    return { trigger: WebhookTrigger.MessageStatusChange, streamId: s.streamId, build: () => statusPayload(s) };
  }
  if (status) return null;
  const edr = parse(MessageEdrV1, e);
  if (edr) return { trigger: WebhookTrigger.EdrInfo, streamId: edr.streamId, build: () => edrPayload(edr) };
  const inbound = parse(MessageReceivedV1, e);
  if (inbound) return { trigger: WebhookTrigger.IncomingMessage, streamId: inbound.streamId, build: (p) => incomingPayload(inbound, p) };
  const click = parse(LinkClickedV1, e);
  if (click) return { trigger: WebhookTrigger.ShortUrlClicks, streamId: click.streamId, build: (p) => clickPayload(click, p) };
  return null;
}

/** The payload the webhook test sends for each trigger (fixed sample values). */
export function samplePayload(trigger: WebhookTriggerValue, accountId: string, p: WebhookParams): Record<string, unknown> {
  const common = { accountId, streamId: '1', streamUid: '00000000-0000-4000-8000-000000000001', messageUuid: '00000000-0000-4000-8000-000000000002', sender: 'Switchboard', destination: '+14155552671', sentAt: '2026-01-01T12:00:00.000Z', deliveredAt: '2026-01-01T12:00:03.000Z', mcc: '310', mnc: '260' };
  switch (trigger) {
    case WebhookTrigger.MessageStatusChange:
      return { ...statusPayload({ ...common, campaignId: null, status: 'delivered', outgoingStatus: null, error: null, vendorId: null, providerMessageId: null, occurredAt: common.deliveredAt }), test: true };
    case WebhookTrigger.EdrInfo:
      return { ...edrPayload({ ...common, campaignId: null, status: 'delivered', network: 'T-Mobile', messageLength: 12, messagePartsCount: 1, utf8: false, costMicros: 50_000, rateMicros: 50_000, currency: 'EUR' }), test: true };
    case WebhookTrigger.IncomingMessage:
      return { ...incomingPayload({ ...common, streamType: 4, channel: 'sms', accountPhone: '+14155550100', contactPhone: '+14155552671', contactName: 'Test Contact', messageType: 'text', body: 'Hello', media: null, receivedAt: common.sentAt }, p), test: true };
    case WebhookTrigger.ShortUrlClicks:
      return { ...clickPayload({ clickId: 'test', accountId, linkId: '1', shortUrl: 'https://sb.example/abc', originalUrl: 'https://example.com/offer', offerId: null, campaignId: null, streamId: '1', messageUuid: common.messageUuid, destination: common.destination, ip: '203.0.113.7', userAgent: 'Mozilla/5.0', clickedAt: common.sentAt }, p), test: true };
  }
}
