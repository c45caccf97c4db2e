import { ApiProperty } from '@nestjs/swagger';

/**
 * What this service's routes answer, for the OpenAPI document (/api/docs.json). The shapes mirror the services'
 * return types; examples are what a caller sees.
 */
export class SenderResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String, example: 'ACME' })
  value!: string;

  @ApiProperty({ type: String, example: '2026-11-25T16:39:53.829Z' })
  createdAt!: string;

  @ApiProperty({ type: String, example: 'outbound-only' })
  type!: string;

  @ApiProperty({ type: String, nullable: true, example: 'GB' })
  country!: string;

  @ApiProperty({ type: Number, example: 1 })
  approved!: number;

  @ApiProperty({ type: String, nullable: true })
  declinedReason!: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  defaultMetadata!: Record<string, unknown>;
}

export class PickResponse {
  @ApiProperty({ type: String, example: 'ACME' })
  value!: string;

  @ApiProperty({ type: String, example: 'outbound-only' })
  type!: string;

  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: Number, example: 1 })
  approved!: number;
}

/** A sender as a super admin sees it: the account's view and whose it is. */
export class SuperAdminSenderResponse extends SenderResponse {
  @ApiProperty({ type: Number, example: 1 })
  accountId!: number;
}

export class MaliciousKeywordsResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String })
  word!: string;

  @ApiProperty({ type: Number })
  type!: number;
}

export class MaliciousKeywordsGetResponse extends MaliciousKeywordsResponse {}

export class MaliciousKeywordsCreateResponse extends MaliciousKeywordsResponse {}

export class MaliciousKeywordsUpdateResponse extends MaliciousKeywordsResponse {}

export class StreamEventResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String, example: 'Hello from Switchboard' })
  text!: string;

  @ApiProperty({ type: String })
  eventKey!: string;

  @ApiProperty({ type: Boolean, example: true })
  active!: boolean;

  @ApiProperty({ type: String })
  stream!: string;

  @ApiProperty({ type: Number, example: 42 })
  streamId!: number;
}

export class OtpRequestResponse {
  @ApiProperty({ type: String, example: '42' })
  otp_id!: string;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  expires_at!: string;

  @ApiProperty({ type: Number })
  ttl!: number;

  @ApiProperty({ type: String, enum: ['OK'], example: 'OK' })
  code!: string;

  @ApiProperty({ type: String, example: 'f3b0c9e2-5d1a-4c1e-9b8e-2a7d4c6e8f10' })
  message_uuid!: string;

  @ApiProperty({ type: String, enum: ['accepted'], example: 'accepted' })
  status!: string;

  @ApiProperty({ type: String, example: 'f3b0c9e2-5d1a-4c1e-9b8e-2a7d4c6e8f10' })
  stream_uid!: string;

  @ApiProperty({ type: String, example: '+447400123456' })
  destination!: string;

  @ApiProperty({ type: String, nullable: true, example: 'GB' })
  country!: string;

  @ApiProperty({ type: String })
  sender!: string;

  @ApiProperty({ type: Number, example: 1 })
  parts!: number;

  @ApiProperty({ type: String, nullable: true })
  encoding!: string;

  @ApiProperty({ type: Number, example: 0.05 })
  price!: number;

  @ApiProperty({ type: String, example: 'EUR' })
  currency!: string;
}

export class OtpVerifyResponse {
  @ApiProperty({ type: String, enum: ['OK'], example: 'OK' })
  code!: string;

  @ApiProperty({ type: Boolean, example: true })
  verified!: boolean;

  @ApiProperty({ type: String, example: '42' })
  otp_id!: string;

  @ApiProperty({ type: String, example: '+447400123456' })
  destination!: string;
}

export class DiagnosticCheckResponse {
  @ApiProperty({ type: String })
  key!: string;

  @ApiProperty({ type: Boolean, example: true })
  ok!: boolean;

  @ApiProperty({ type: String, example: 'Hello from Switchboard' })
  message!: string;
}

export class StreamToolsDiagnosticsResponse {
  @ApiProperty({ type: Number, example: 1 })
  streamId!: number;

  @ApiProperty({ type: Boolean, example: true })
  ok!: boolean;

  @ApiProperty({ type: () => [DiagnosticCheckResponse] })
  checks!: DiagnosticCheckResponse[];
}

export class MessageResponseErrorResponse {
  @ApiProperty({ allOf: [{ oneOf: [{ type: 'string' }, { type: 'number' }] }] })
  code!: unknown;

  @ApiProperty({ type: String, example: 'Hello from Switchboard' })
  message!: string;
}

export class MessageResponse2Response {
  @ApiProperty({ type: Number })
  code!: number;

  @ApiProperty({ type: String, nullable: true, example: 'f3b0c9e2-5d1a-4c1e-9b8e-2a7d4c6e8f10', required: false })
  message_uuid?: string;

  @ApiProperty({ type: String, nullable: true, example: 'f3b0c9e2-5d1a-4c1e-9b8e-2a7d4c6e8f10', required: false })
  stream_uid?: string;

  @ApiProperty({ type: () => MessageResponseErrorResponse, nullable: true, required: false })
  error?: MessageResponseErrorResponse;
}

export class StreamResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'Order notifications' })
  name!: string;

  @ApiProperty({ type: String })
  description!: string;

  @ApiProperty({ type: String, nullable: true })
  staticServiceType!: string;

  @ApiProperty({ type: Number, example: 1 })
  status!: number;

  @ApiProperty({ type: Number, example: 2 })
  streamType!: number;

  @ApiProperty({ type: [String] })
  ipAcl!: string[];

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T16:39:59.125Z' })
  lastSentTime!: string;

  @ApiProperty({ type: String, nullable: true, example: 'ACME' })
  sender!: string;

  @ApiProperty({ type: [String] })
  streamTags!: string[];

  @ApiProperty({ type: Boolean, example: true })
  enableSending!: boolean;

  @ApiProperty({ type: Boolean, example: false })
  isDefault!: boolean;

  @ApiProperty({ type: String, example: '83189566-306b-40de-9e61-5bbb0d10bd0c' })
  streamUid!: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  params!: Record<string, unknown>;

  @ApiProperty({ type: String, example: '2026-11-25T16:39:54.289Z' })
  createdAt!: string;

  @ApiProperty({ type: String, example: '2026-11-25T16:39:54.289Z' })
  updatedAt!: string;
}

export class DropdownItemResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'Order notifications' })
  name!: string;

  @ApiProperty({ type: Number, example: 2 })
  streamType!: number;

  @ApiProperty({ type: Number, example: 1 })
  status!: number;

  @ApiProperty({ type: String, example: '83189566-306b-40de-9e61-5bbb0d10bd0c' })
  streamUid!: string;
}

export class MessageStatusResponse {
  @ApiProperty({ type: String, example: 'eee380cc-9013-47f4-94e5-f26f3ee368b5' })
  message_uuid!: string;

  @ApiProperty({ type: Number, example: 1 })
  stream_id!: number;

  @ApiProperty({ type: String, example: '+447400123456' })
  destination!: string;

  @ApiProperty({ type: String, example: 'ACME' })
  sender!: string;

  @ApiProperty({ type: String, nullable: true, example: 'GB' })
  country!: string;

  @ApiProperty({ type: String, example: 'delivered' })
  status!: string;

  @ApiProperty({ type: String, nullable: true, example: 'delivered' })
  outgoing_status!: string;

  @ApiProperty({ type: String, nullable: true })
  error!: string;

  @ApiProperty({ type: Number, example: 1 })
  parts!: number;

  @ApiProperty({ type: Number, example: 0.035 })
  price!: number;

  @ApiProperty({ type: Number, example: 0 })
  refunded!: number;

  @ApiProperty({ type: String, example: 'EUR' })
  currency!: string;

  @ApiProperty({ type: Boolean, example: false })
  demo!: boolean;

  @ApiProperty({ type: String, example: '2026-11-25T16:39:59.114Z' })
  created_at!: string;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T16:39:59.179Z' })
  sent_at!: string;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T16:40:00.183Z' })
  delivered_at!: string;
}

export class StreamsTokenResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: '83189566-306b-40de-9e61-5bbb0d10bd0c' })
  streamUid!: string;

  @ApiProperty({ type: String, example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' })
  token!: string;
}

export class StreamsResetTokenResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'f3b0c9e2-5d1a-4c1e-9b8e-2a7d4c6e8f10' })
  streamUid!: string;

  @ApiProperty({ type: String, example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' })
  token!: string;
}

export class DemoResponseErrorResponse {
  @ApiProperty({ allOf: [{ oneOf: [{ type: 'string' }, { type: 'number' }] }] })
  code!: unknown;

  @ApiProperty({ type: String, example: 'Hello from Switchboard' })
  message!: string;
}

export class DemoResponse2Response {
  @ApiProperty({ type: Boolean, example: true })
  success!: boolean;

  @ApiProperty({ type: String, nullable: true, example: 'f3b0c9e2-5d1a-4c1e-9b8e-2a7d4c6e8f10', required: false })
  message_uuid?: string;

  @ApiProperty({ type: () => DemoResponseErrorResponse, nullable: true, required: false })
  error?: DemoResponseErrorResponse;

  @ApiProperty({ type: String, nullable: true, enum: ['OK'], example: 'OK', required: false })
  code?: string;

  @ApiProperty({ type: String, nullable: true, enum: ['accepted'], example: 'accepted', required: false })
  status?: string;

  @ApiProperty({ type: String, nullable: true, example: 'f3b0c9e2-5d1a-4c1e-9b8e-2a7d4c6e8f10', required: false })
  stream_uid?: string;

  @ApiProperty({ type: String, nullable: true, example: '+447400123456', required: false })
  destination?: string;

  @ApiProperty({ type: String, nullable: true, example: 'GB', required: false })
  country?: string;

  @ApiProperty({ type: String, nullable: true, required: false })
  sender?: string;

  @ApiProperty({ type: Number, nullable: true, example: 1, required: false })
  parts?: number;

  @ApiProperty({ type: String, nullable: true, required: false })
  encoding?: string;

  @ApiProperty({ type: Number, nullable: true, example: 0.05, required: false })
  price?: number;

  @ApiProperty({ type: String, nullable: true, example: 'EUR', required: false })
  currency?: string;
}

export class ViolationResponse {
  @ApiProperty({ type: String })
  propertyPath!: string;

  @ApiProperty({ type: String, example: 'Hello from Switchboard' })
  message!: string;

  @ApiProperty({ type: String, nullable: true, example: 'impossiblePhoneNumber', required: false })
  code?: string;
}

export class DemoResponse {
  @ApiProperty({ type: String, enum: ['OK', 'REQUEST_VALIDATION_ERROR', 'SENT_FAILED'], example: 'OK' })
  code!: string;

  @ApiProperty({ type: String, enum: ['success', 'phone_not_entered', 'phone_invalid', 'message_empty', 'sender_not_exist', 'failed'], example: 'success' })
  result!: string;

  @ApiProperty({ type: () => DemoResponse2Response })
  response!: DemoResponse2Response;

  @ApiProperty({ type: () => [ViolationResponse], nullable: true, required: false })
  violations?: ViolationResponse[];
}

export class StreamsPreviewWhatsAppBusinessResponse {
  @ApiProperty({ type: String, example: '42' })
  id!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Acme' })
  name!: string;
}

export class WhatsAppPhoneNumberResponse {
  @ApiProperty({ type: String, example: '1' })
  id!: string;

  @ApiProperty({ type: String, example: 'ACME' })
  display_phone_number!: string;

  @ApiProperty({ type: String, example: 'Acme' })
  verified_name!: string;
}

export class StreamsPreviewWhatsAppResponse {
  @ApiProperty({ type: () => StreamsPreviewWhatsAppBusinessResponse })
  business!: StreamsPreviewWhatsAppBusinessResponse;

  @ApiProperty({ type: () => [WhatsAppPhoneNumberResponse] })
  phone_numbers!: WhatsAppPhoneNumberResponse[];
}

export class StreamsPreviewTelegramResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, nullable: true, example: 'acme_orders_bot' })
  username!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Acme Orders' })
  first_name!: string;

  @ApiProperty({ type: Boolean })
  is_bot!: boolean;
}

export class StreamsInboxMappingResponse {
  @ApiProperty({ type: Number, example: 42 })
  streamId!: number;

  @ApiProperty({ type: String, example: 'f3b0c9e2-5d1a-4c1e-9b8e-2a7d4c6e8f10' })
  streamUid!: string;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: [Number], example: [42] })
  roleIds!: number[];
}

export class StreamsSetInboxMappingResponse {
  @ApiProperty({ type: Number, example: 42 })
  streamId!: number;

  @ApiProperty({ type: [Number], example: [42] })
  roleIds!: number[];
}
