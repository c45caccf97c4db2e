import { z } from 'zod';
import { defineEvent, Topics } from './events';

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

/**
 * The webhooks service turned a webhook off by itself: the receiver answered 410 Gone (`gone`) or its deliveries
 * failed for days without a success (`failing`). Auth (which owns users and mail) emails the account's admins once
 * per event. No secrets: the webhook's URL is given as its origin only (a path or query may carry the customer's
 * token), never its headers or signing secret. docs/decisions/0027-webhooks.md.
 */
export const WebhookDisabledV1 = defineEvent({
  type: 'webhooks.webhook.disabled',
  version: 1,
  topic: Topics.Webhooks,
  key: (d) => d.webhookId,
  schema: z.object({
    accountId: z.string().regex(/^\d+$/),
    webhookId: z.string().regex(/^\d+$/),
    name: z.string(),
    /** scheme://host[:port] of the URL, nothing after it. */
    origin: z.string(),
    trigger: z.enum(['incoming_message', 'short_url_clicks', 'message_status_change', 'edr_info']),
    reason: z.enum(['gone', 'failing']),
    /** When deliveries started failing (`failing`), ISO 8601; null for `gone`. */
    failingSince: z.string().nullable(),
    disabledAt: z.string(),
  }),
});
