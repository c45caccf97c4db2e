import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_TEXT_LENGTH } from '../services/send.service';

/*
 * The stream API's request and answer shapes, for the OpenAPI document only: SendService and OtpService validate
 * the raw body themselves (the hot path skips class-validator), with the same rules as described here.
 */

/** `POST /api/streams/messages`. Properties other than these are refused (400 0x1). */
export class StreamMessageDto {
  @ApiProperty({
    example: '+447400123456',
    description: 'the destination: a phone number in international format (national numbers are refused), or for a Telegram bot stream a chat id or @username',
  })
  phone!: string;

  @ApiPropertyOptional({
    example: 'Your order 1234 has shipped',
    maxLength: MAX_TEXT_LENGTH,
    description: `the text; required unless a WhatsApp \`payload\` is given. GSM-7 texts over 160 characters (UCS-2 over 70) are sent in parts of 153 (67), each part charged. At most ${MAX_TEXT_LENGTH} characters.`,
  })
  message?: string;

  @ApiPropertyOptional({
    example: 'ACME',
    description: "SMS streams: the sender ID (up to 11 letters and digits, or a phone number); default the stream's sender. When the account validates senders it must be an approved sender (POST /api/senders, approved by a super administrator). WhatsApp and Telegram private streams send as their own number: omit it.",
  })
  sender?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { type: 'template', template: { name: 'order_update', language: { code: 'en' } } },
    description: 'WhatsApp streams only: a template or media message as the WhatsApp Cloud API takes it (at most 16 KiB of JSON)',
  })
  payload?: Record<string, unknown>;
}

/** The answer of an accepted message (202): it is queued; its status arrives by webhook and in GET /api/streams/message_status. */
export class StreamMessageAcceptedResponse {
  @ApiProperty({ enum: ['OK'], example: 'OK' })
  code!: string;

  @ApiProperty({ example: '0193a8f2-6c1e-7d4b-9f3a-2b5c8d1e4f60', description: 'the message id: ask GET /api/streams/message_status?uuid= for its status' })
  message_uuid!: string;

  @ApiProperty({ enum: ['accepted'], example: 'accepted' })
  status!: string;

  @ApiProperty({ example: '8c0e9f7a-2b1d-4e5f-9a6b-3c2d1e0f4a5b' })
  stream_uid!: string;

  @ApiProperty({ example: '+447400123456', description: 'the destination, normalised to E.164' })
  destination!: string;

  @ApiProperty({ type: String, nullable: true, example: 'GB', description: 'the destination country (ISO 3166-1 alpha-2), null for Telegram chats' })
  country!: string | null;

  @ApiProperty({ example: 'ACME' })
  sender!: string;

  @ApiProperty({ example: 1, description: 'SMS parts the text needs (each is charged)' })
  parts!: number;

  @ApiProperty({ type: String, nullable: true, enum: ['GSM7', 'UCS2', null], example: 'GSM7' })
  encoding!: string | null;

  @ApiProperty({ example: 0.05, description: 'what was taken from the balance for this message' })
  price!: number;

  @ApiProperty({ example: 'EUR' })
  currency!: string;
}

/** `POST /api/streams/otp/request` (OTP streams). */
export class OtpRequestDto {
  @ApiProperty({ example: '+447400123456', description: 'the destination in international format' })
  phone!: string;

  @ApiPropertyOptional({ example: 'ACME', description: "the sender ID; default the stream's sender" })
  sender?: string;
}

/** `POST /api/streams/otp/verify` (OTP streams). */
export class OtpVerifyDto {
  @ApiProperty({ example: '+447400123456' })
  phone!: string;

  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'integer' }], example: '12345', description: 'the code the recipient received' })
  code!: string;
}

/** `GET /api/stream/code_snippet`: ready-to-run calls of the stream API with the stream's token. */
export class CodeSnippetResponse {
  @ApiProperty({ example: 7 })
  streamId!: number;

  @ApiProperty({ example: '8c0e9f7a-2b1d-4e5f-9a6b-3c2d1e0f4a5b' })
  streamUid!: string;

  @ApiProperty({ example: 'http://127.0.0.1:3000/api/streams/messages', description: 'the URL to call (otp/request for OTP streams)' })
  url!: string;

  @ApiProperty({ example: 'sbs_3CW4qTuc-UmAstAW3tcX6aYh13ztDsIY', description: 'the stream token' })
  token!: string;

  @ApiProperty({ example: "curl -X POST 'http://127.0.0.1:3000/api/streams/messages' -H 'Authorization: sbs_…' -H 'Content-Type: application/json' -d '{\"phone\":\"+14155552671\",\"message\":\"Hello from Switchboard\"}'" })
  curl!: string;

  @ApiProperty({ example: "const res = await fetch('http://127.0.0.1:3000/api/streams/messages', { … });" })
  node!: string;

  @ApiProperty({ example: "res = requests.post('http://127.0.0.1:3000/api/streams/messages', …)" })
  python!: string;

  @ApiProperty({ example: "<?php $ch = curl_init('http://127.0.0.1:3000/api/streams/messages'); …" })
  php!: string;

  @ApiPropertyOptional({ example: 'http://127.0.0.1:3000/api/streams/otp/verify', description: 'OTP streams only' })
  verifyUrl?: string;

  @ApiPropertyOptional({ example: "curl -X POST 'http://127.0.0.1:3000/api/streams/otp/verify' …", description: 'OTP streams only' })
  verifyCurl?: string;
}

/** `GET /api/streams/webhooks/{id}`: where the provider must send a stream's inbound messages and reports. */
export class StreamWebhooksResponse {
  @ApiProperty({ example: 7 })
  streamId!: number;

  @ApiProperty({ example: '8c0e9f7a-2b1d-4e5f-9a6b-3c2d1e0f4a5b' })
  streamUid!: string;

  @ApiProperty({ example: 'whatsapp', enum: ['sms', 'whatsapp', 'telegram', 'telegram_private'] })
  channel!: string;

  @ApiProperty({ type: String, nullable: true, example: 'http://127.0.0.1:3000/api/dispatch/webhooks/whatsapp/8c0e9f7a-2b1d-4e5f-9a6b-3c2d1e0f4a5b', description: 'WhatsApp and Telegram streams; null for others' })
  callbackUrl!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '5f2c…', description: 'WhatsApp: the verify token to enter in the Meta app settings' })
  verifyToken!: string | null;
}

/** A WhatsApp message template or flow as the WhatsApp Cloud API returns it (passed through unchanged). */
export const WHATSAPP_OBJECT_SCHEMA = {
  type: 'object' as const,
  additionalProperties: true,
  description: 'as the WhatsApp Cloud API returns it',
  example: { id: '1234567890', name: 'order_update', language: 'en', status: 'APPROVED', category: 'UTILITY', components: [{ type: 'BODY', text: 'Your order {{1}} has shipped' }] },
};

/** `{ items, total }` of WhatsApp Cloud API objects. */
export const WHATSAPP_LIST_SCHEMA = {
  type: 'object' as const,
  required: ['items', 'total'],
  properties: { items: { type: 'array' as const, items: WHATSAPP_OBJECT_SCHEMA }, total: { type: 'integer' as const, example: 1 } },
};
