import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** What the webhooks routes answer, for the OpenAPI document (/api/docs.json). */
export class WebhookFilterBody {
  @ApiProperty({ type: [Number], description: 'only these streams; empty: every stream', example: [1, 2] })
  stream_id!: number[];
}

export class WebhookParamsBody {
  @ApiProperty({ type: Boolean, example: false })
  send_bulk!: boolean;

  @ApiProperty({ type: Boolean, example: true })
  include_message_text!: boolean;

  @ApiProperty({ type: Boolean, example: false })
  include_contact_details!: boolean;

  @ApiProperty({ type: Boolean, example: false })
  include_lead_id!: boolean;
}

export class WebhookResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'Order statuses' })
  name!: string;

  @ApiProperty({ type: String, example: 'https://hooks.example.com/switchboard' })
  url!: string;

  @ApiProperty({ enum: ['GET', 'POST'], example: 'POST' })
  httpMethod!: string;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { 'x-api-key': 'abc' } })
  headers!: Record<string, string>;

  @ApiProperty({ type: Boolean, example: true })
  active!: boolean;

  @ApiProperty({ enum: ['incoming_message', 'short_url_clicks', 'message_status_change', 'edr_info'], example: 'message_status_change' })
  trigger!: string;

  @ApiProperty({ type: WebhookFilterBody })
  filter!: WebhookFilterBody;

  @ApiProperty({ type: WebhookParamsBody })
  params!: WebhookParamsBody;

  @ApiProperty({ type: String, nullable: true, description: 'why deliveries turned the webhook off (410 Gone, failing for days)', example: null })
  disabledReason!: string | null;

  @ApiProperty({ type: String, example: '2026-11-25T16:39:53.829Z' })
  createdAt!: string;

  @ApiProperty({ type: String, example: '2026-11-25T16:39:53.829Z' })
  updatedAt!: string;
}

export class WebhookCreatedResponse extends WebhookResponse {
  @ApiPropertyOptional({ type: String, description: 'the signing secret, answered on create only', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
  secret!: string;
}

export class RotateSecretResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, description: 'the new signing secret, answered once', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
  secret!: string;

  @ApiProperty({ type: String, description: 'the previous secret signs beside the new one until then', example: '2026-11-26T16:39:53.829Z' })
  previousSecretValidUntil!: string;
}

export class CodeSnippetsResponse {
  @ApiProperty({ type: String, example: "const crypto = require('node:crypto'); ..." })
  node!: string;

  @ApiProperty({ type: String, example: 'import base64, hashlib, hmac ...' })
  python!: string;

  @ApiProperty({ type: String, example: '<?php $secret = getenv(...); ...' })
  php!: string;

  @ApiProperty({ type: String, example: "curl -X POST https://your.server/webhook -H 'webhook-id: ...' ..." })
  curl!: string;
}

export class SentRequestBody {
  @ApiProperty({ type: String, example: 'https://hooks.example.com/switchboard' })
  uri!: string;

  @ApiProperty({ enum: ['GET', 'POST'], example: 'POST' })
  method!: string;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { 'content-type': 'application/json', 'webhook-id': '0b6f5c1e-3c4d-4e8f-9a10-1b2c3d4e5f60' } })
  headers!: Record<string, string>;

  @ApiProperty({ type: String, example: '{"type":"message_status_change","status":"delivered"}' })
  body!: string;
}

export class ReceivedResponseBody {
  @ApiProperty({ type: Number, example: 200 })
  status!: number;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { 'content-type': 'application/json' } })
  headers!: Record<string, string>;

  @ApiProperty({ type: String, example: '{"ok":true}' })
  body!: string;
}

export class WebhookTestResultResponse {
  @ApiProperty({ enum: ['success', 'failed', 'timeout'], example: 'success' })
  status!: string;

  @ApiProperty({ type: String, nullable: true, description: 'E-CONNECTION_TIMEOUT on timeout; HTTP_<status>, E-DESTINATION_REFUSED or a socket error code on failure', example: null })
  code!: string | null;

  @ApiProperty({ type: SentRequestBody })
  request!: SentRequestBody;

  @ApiProperty({ type: ReceivedResponseBody, nullable: true })
  response!: ReceivedResponseBody | null;

  @ApiProperty({ type: Number, example: 42 })
  durationMs!: number;
}

export class WebhookRequestLogResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: '/api/webhooks/1' })
  webhook!: string;

  @ApiProperty({ type: Number, example: 1 })
  webhookId!: number;

  @ApiProperty({ type: String, nullable: true, description: 'the webhook-id header: the same on every retry', example: '0b6f5c1e-3c4d-4e8f-9a10-1b2c3d4e5f60' })
  eventId!: string | null;

  @ApiProperty({ type: Number, example: 1 })
  attempt!: number;

  @ApiProperty({ type: Boolean, description: 'sent by the test button', example: false })
  test!: boolean;

  @ApiProperty({ type: SentRequestBody })
  request!: SentRequestBody;

  @ApiProperty({ type: ReceivedResponseBody, nullable: true })
  response!: ReceivedResponseBody | null;

  @ApiProperty({ enum: ['success', 'failed', 'timeout'], example: 'success' })
  status!: string;

  @ApiProperty({ type: String, nullable: true, example: null })
  error!: string | null;

  @ApiProperty({ type: Number, example: 42 })
  durationMs!: number;

  @ApiProperty({ type: String, example: '2026-11-25T16:39:53.829Z' })
  sentAt!: string;
}
