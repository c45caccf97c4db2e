/** Webhook triggers (spec 4): incoming message, short URL clicks, message status change, EDR info. */
export const WebhookTrigger = {
  IncomingMessage: 'incoming_message',
  ShortUrlClicks: 'short_url_clicks',
  MessageStatusChange: 'message_status_change',
  EdrInfo: 'edr_info',
} as const;
export type WebhookTriggerValue = (typeof WebhookTrigger)[keyof typeof WebhookTrigger];
export const WEBHOOK_TRIGGERS: readonly WebhookTriggerValue[] = Object.values(WebhookTrigger);

/** Payload options of a webhook (spec 3). */
export interface WebhookParams {
  send_bulk: boolean;
  include_message_text: boolean;
  include_contact_details: boolean;
  include_lead_id: boolean;
}

/** A webhook as the API answers it (spec 3); the signing secret is answered once, on create and rotation. */
export interface WebhookDto {
  id: number;
  name: string;
  url: string;
  httpMethod: 'GET' | 'POST';
  headers: Record<string, string>;
  active: boolean;
  trigger: WebhookTriggerValue;
  filter: { stream_id: number[] };
  params: WebhookParams;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
  secret?: string;
}

/** One attempt in the request log (spec 3: id, webhook, request, response, status, sentAt). */
export interface WebhookRequestLogDto {
  id: number;
  webhook: string;
  webhookId: number;
  eventId: string | null;
  attempt: number;
  test: boolean;
  request: { uri: string; method: 'GET' | 'POST'; headers: Record<string, string>; body: string };
  response: { status: number; headers: Record<string, string>; body: string } | null;
  status: 'success' | 'failed' | 'timeout';
  error: string | null;
  durationMs: number;
  sentAt: string;
}

/** The answer of `POST /webhooks/test/{id}` (spec 2, the webhook test result modal). */
export interface WebhookTestResultDto {
  status: 'success' | 'failed' | 'timeout';
  code: string | null;
  request: WebhookRequestLogDto['request'];
  response: WebhookRequestLogDto['response'];
  durationMs: number;
}
