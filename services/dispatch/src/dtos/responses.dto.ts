import { ApiProperty } from '@nestjs/swagger';

/**
 * What this service's routes answer, for the OpenAPI document (/api/docs.json). The shapes mirror the services'
 * return types; examples are what a caller sees.
 */
export class ChannelResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'SMS simulator' })
  name!: string;

  @ApiProperty({ type: Boolean, example: true })
  active!: boolean;

  @ApiProperty({ type: [String], example: ['dlr'] })
  stsMethods!: string[];

  @ApiProperty({ type: Number, example: 1 })
  routingProvider!: number;
}

export class ChannelsSyncResponse {
  @ApiProperty({ type: Number, example: 1 })
  created!: number;
}

export class MessageResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'f3b0c9e2-5d1a-4c1e-9b8e-2a7d4c6e8f10' })
  uuid!: string;

  @ApiProperty({ type: String, example: 'f3b0c9e2-5d1a-4c1e-9b8e-2a7d4c6e8f10' })
  streamUid!: string;

  @ApiProperty({ type: String, example: 'sms' })
  channel!: string;

  @ApiProperty({ type: String, example: '+447400123456', description: 'The contact who wrote (their number, or a Telegram chat id).' })
  source!: string;

  @ApiProperty({ type: String, example: '+447400654321', description: 'Where it was sent: our number / phone number id / bot.' })
  destination!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Acme' })
  contactName!: string;

  @ApiProperty({ type: String })
  messageType!: string;

  @ApiProperty({ type: String, example: 'Hello from Switchboard' })
  message!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true })
  media!: Record<string, unknown>;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  receivedAt!: string;
}

/** An inbound message no account owns, kept aside for the super administrator (docs/decisions/0021). */
export class UnclaimedInboundResponse {
  @ApiProperty({ type: Number, example: 7 })
  id!: number;

  @ApiProperty({ type: String, enum: ['sms', 'whatsapp', 'telegram'], example: 'sms' })
  channel!: string;

  @ApiProperty({ type: Number, nullable: true, example: 1 })
  vendorId!: number;

  @ApiProperty({ type: String, example: '+447400654321', description: 'The address as claims spell it: E.164, a phone number id, a bot id.' })
  address!: string;

  @ApiProperty({ type: String, example: '+447400123456', description: 'The contact who wrote.' })
  source!: string;

  @ApiProperty({ type: String, example: '447400654321', description: 'Our side as the provider named it.' })
  destination!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Ada' })
  contactName!: string;

  @ApiProperty({ type: String, example: 'text' })
  messageType!: string;

  @ApiProperty({ type: String, example: 'STOP' })
  message!: string;

  @ApiProperty({ type: String, enum: ['unclaimed', 'no_stream'], example: 'unclaimed', description: 'unclaimed: no account owns the address; no_stream: its owner has no stream for it.' })
  reason!: string;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  receivedAt!: string;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:01.000Z' })
  heldAt!: string;
}

export class ChatItemResponse {
  @ApiProperty({ type: String, enum: ['in', 'out'], example: 'in' })
  direction!: string;

  @ApiProperty({ type: String, example: 'f3b0c9e2-5d1a-4c1e-9b8e-2a7d4c6e8f10' })
  uuid!: string;

  @ApiProperty({ type: String, example: 'Hello from Switchboard' })
  message!: string;

  @ApiProperty({ type: String, nullable: true, example: 'delivered' })
  status!: string;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  at!: string;
}

export class CountryRouteResponse {
  @ApiProperty({ type: String, example: '1' })
  id!: string;

  @ApiProperty({ type: String, nullable: true, example: '42' })
  accountId!: string;

  @ApiProperty({ type: String, example: 'GB' })
  iso2!: string;

  @ApiProperty({ type: String, enum: ['sms', 'whatsapp', 'telegram', 'telegram_private'], example: 'sms' })
  serviceType!: string;

  @ApiProperty({ type: [String], example: ['5'] })
  vendorIds!: string[];

  @ApiProperty({ type: String, nullable: true, example: 'admin@switchboard.local' })
  updatedBy!: string;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-25T16:39:53.729Z' })
  updatedAt!: string;
}

export class ServiceTypeManagerRefreshResponse {
  @ApiProperty({ type: Boolean, example: true })
  refreshed!: boolean;

  @ApiProperty({ type: Number })
  vendors!: number;
}

export class VendorResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'SMS simulator' })
  name!: string;

  @ApiProperty({ type: String, example: 'sms' })
  service_type!: string;

  @ApiProperty({ type: String, example: 'Acme Telecom' })
  carrier!: string;

  @ApiProperty({ type: String, example: 'SMS simulator' })
  product_name!: string;

  @ApiProperty({ type: String, example: '42' })
  product_id!: string;

  @ApiProperty({ type: Boolean, example: true })
  active!: boolean;

  @ApiProperty({ type: String, example: 'EUR' })
  currency!: string;

  @ApiProperty({ type: String, example: 'simulator' })
  adapter!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Connection settings with secrets masked.' })
  config!: Record<string, unknown>;
}

export class ServiceTypeManagerCurrentRoutingResponse {
  @ApiProperty({ type: String, nullable: true, example: 'GB' })
  iso2!: string;

  @ApiProperty({ type: String, example: 'sms' })
  serviceType!: string;

  @ApiProperty({ type: String, example: 'global' })
  source!: string;

  @ApiProperty({ type: () => [VendorResponse] })
  vendors!: VendorResponse[];
}

export class RoutingHistoryResponse {
  @ApiProperty({ type: String, example: '1' })
  id!: string;

  @ApiProperty({ type: String, nullable: true, example: '42' })
  accountId!: string;

  @ApiProperty({ type: String, example: 'GB' })
  iso2!: string;

  @ApiProperty({ type: String, example: 'sms' })
  serviceType!: string;

  @ApiProperty({ type: [String], nullable: true, example: ['42'] })
  previousVendorIds!: string[];

  @ApiProperty({ type: [String], nullable: true, example: ['5'] })
  vendorIds!: string[];

  @ApiProperty({ type: String, nullable: true, example: 'admin@switchboard.local' })
  changedBy!: string;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-25T16:39:53.729Z' })
  changedAt!: string;
}

export class WebhooksWhatsAppResponse {
  @ApiProperty({ type: Boolean, example: true })
  ok!: boolean;
}

export class WebhooksTelegramResponse {
  @ApiProperty({ type: Boolean, example: true })
  ok!: boolean;
}

export class AwaitingReceiptResponse {
  @ApiProperty({ type: String, example: '1042' })
  id!: string;

  @ApiProperty({ type: String, format: 'uuid', example: '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d' })
  uuid!: string;

  @ApiProperty({ type: String, example: '42' })
  accountId!: string;

  @ApiProperty({ type: String, example: '5' })
  vendorId!: string;

  @ApiProperty({ type: String, example: 'Acme SMSC' })
  vendor!: string;

  @ApiProperty({ type: String, example: '+447700900123' })
  destination!: string;

  @ApiProperty({ type: [String], example: ['0000000a3f'], description: "the carrier's message id of each part" })
  providerIds!: string[];

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-25T14:02:11.120Z' })
  sentAt!: string;

  @ApiProperty({ type: Number, example: 5400, description: 'seconds since it was sent' })
  waitingSeconds!: number;
}

export class AwaitingReceiptsVendorResponse {
  @ApiProperty({ type: String, example: '5' })
  vendorId!: string;

  @ApiProperty({ type: String, example: 'Acme SMSC' })
  vendor!: string;

  @ApiProperty({ type: Number, example: 3600000, description: "the vendor's limit (config receiptOverdueMs, default 1 h), ms" })
  receiptOverdueMs!: number;

  @ApiProperty({ type: Number, example: 12, description: 'messages of this vendor past the limit' })
  overdue!: number;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-25T14:02:11.120Z', description: 'when the oldest of them was sent' })
  oldestSentAt!: string;
}

export class AwaitingReceiptsResponse {
  @ApiProperty({ type: [AwaitingReceiptResponse], description: 'one page, oldest first' })
  items!: AwaitingReceiptResponse[];

  @ApiProperty({ type: Number, example: 12, description: 'messages past their limit, over every page' })
  total!: number;

  @ApiProperty({ type: [AwaitingReceiptsVendorResponse], description: 'per vendor with messages past its limit' })
  vendors!: AwaitingReceiptsVendorResponse[];
}
