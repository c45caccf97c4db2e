import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import type { SmppAdapterConfig } from '../adapters/smpp.adapter';
import type { SimulatorConfig } from '../adapters/simulator.adapter';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';

const SERVICE_TYPES = ['sms', 'whatsapp', 'telegram', 'telegram_private'] as const;
const ADAPTERS = ['smpp', 'simulator', 'whatsapp', 'telegram_bot', 'telegram_private'] as const;

/**
 * The `config` of an `smpp` vendor (SmppAdapterConfig): one or more binds (transceiver) to the carrier's SMSC.
 * Receipts (deliver_sm in the SMPP 3.4 appendix B format) set the final status: DELIVRD delivered, UNDELIV,
 * EXPIRED, REJECTD and the like undelivered.
 */
export class SmppVendorConfigDto {
  @ApiProperty({ example: 'smsc.example.net', description: "the SMSC's host name or address" })
  host!: string;

  @ApiProperty({ example: 2775, description: 'the SMSC\'s SMPP port (2775 is usual; TLS is not supported: use a tunnel)' })
  port!: number;

  @ApiProperty({ example: 'acme', description: 'system_id of the bind, as the carrier issued it' })
  systemId!: string;

  @ApiProperty({ example: 'secret', description: 'password of the bind (at most 8 characters in SMPP 3.4); masked as ******** in answers' })
  password!: string;

  @ApiPropertyOptional({ example: '', default: '', description: 'system_type of the bind, when the carrier asks for one' })
  systemType?: string;

  @ApiPropertyOptional({ example: 1, default: 1, minimum: 1, description: 'parallel binds; each has its own window and rate (the carrier must allow that many sessions)' })
  connections?: number;

  @ApiPropertyOptional({ example: 64, default: 64, minimum: 1, description: 'submit_sm outstanding per bind before waiting for responses' })
  window?: number;

  @ApiPropertyOptional({ example: 10, default: 0, minimum: 0, description: 'the most submit_sm per second per bind (the carrier\'s agreed throughput; each SMS part is one); 0 = no ceiling. Within it the bind finds the carrier\'s real rate: it halves on ESME_RTHROTTLED / ESME_RMSGQFUL and climbs back (AIMD)' })
  tps?: number;

  @ApiPropertyOptional({ example: 100, default: 100, description: 'credit a bind may bank while busy, in ms of traffic (token-bucket burst)' })
  burstMs?: number;

  @ApiPropertyOptional({ example: 1, default: 1, minimum: 1, description: 'the pacer never slows a bind below this many submit_sm per second, however often the carrier throttles' })
  minTps?: number;

  @ApiPropertyOptional({ example: 30000, default: 30000, description: 'enquire_link period, ms' })
  enquireLinkMs?: number;

  @ApiPropertyOptional({ example: 30000, default: 30000, description: 'a submit_sm without a response after this long is "unknown" and never resent blindly, ms' })
  submitTimeoutMs?: number;

  @ApiPropertyOptional({ example: 500, default: 500, description: 'first reconnect delay, doubled up to 30 s, ms' })
  reconnectMs?: number;

  @ApiPropertyOptional({ example: 100, default: 100, description: 'pause before a transient error (ESME_RSYSERR) is retried on the bind, ms' })
  throttleBackoffMs?: number;

  @ApiPropertyOptional({ example: 3, default: 3, description: 'transient errors (ESME_RSYSERR, queue full) retried on the bind before the message goes back to routing' })
  transientRetries?: number;

  @ApiPropertyOptional({
    example: 3600000,
    default: 3600000,
    minimum: 1,
    description: 'how long this carrier\'s receipts may take, ms: a sent message without its final receipt after this long is listed by GET /api/service_type_manager/awaiting_receipts (it still ends undelivered only at the 72 h receipt timeout)',
  })
  receiptOverdueMs?: number;

  @ApiPropertyOptional({ example: 5, default: 5, description: 'source_addr_ton: 5 alphanumeric (sender IDs like ACME), 1 international (numeric senders)' })
  sourceTon?: number;

  @ApiPropertyOptional({ example: 0, default: 0, description: 'source_addr_npi: 0 unknown, 1 ISDN (E.164)' })
  sourceNpi?: number;

  @ApiPropertyOptional({ example: 1, default: 1, description: 'dest_addr_ton: 1 international' })
  destTon?: number;

  @ApiPropertyOptional({ example: 1, default: 1, description: 'dest_addr_npi: 1 ISDN (E.164)' })
  destNpi?: number;

  @ApiPropertyOptional({
    example: 'DE',
    description: 'the country (ISO 3166 alpha-2) of national-form numbers (TON 2) in mobile-originated messages; without it a reply to a national-form number is held aside for the super administrator (GET /api/dispatch/inbound_unclaimed), never guessed',
  })
  moRegion?: string;
}

/** Both ways: a setting the adapter reads is documented, and nothing documented is unknown to it (tsc fails otherwise). */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : { missing: Exclude<keyof B, keyof A>; unknown: Exclude<keyof A, keyof B> };
export const SMPP_SETTINGS_DOCUMENTED: SameKeys<SmppVendorConfigDto, SmppAdapterConfig> = true;

/** The `config` of a `simulator` vendor: accepts every message and reports it by itself (embedded mode, demos). */
export class SimulatorVendorConfigDto {
  @ApiPropertyOptional({ example: 0.95, default: 1, minimum: 0, maximum: 1, description: 'share of messages reported delivered; the rest undelivered' })
  deliveryRatio?: number;

  @ApiPropertyOptional({ example: 2000, default: 1000, description: 'delay of the delivery report, ms' })
  delayMs?: number;

  @ApiPropertyOptional({ example: 3000, description: 'also report read this long after delivery (WhatsApp-like), ms; omit for none' })
  readAfterMs?: number;

  @ApiPropertyOptional({ type: [String], example: ['+4477009'], description: 'destinations refused outright (a rejected send)' })
  rejectPrefixes?: string[];
}

export const SIMULATOR_SETTINGS_DOCUMENTED: SameKeys<SimulatorVendorConfigDto, Omit<SimulatorConfig, 'random'>> = true;

export class CountryRouteDto {
  @ApiProperty({ example: 'GB', description: 'the destination country (ISO 3166-1 alpha-2)' }) @IsString() @Matches(/^[A-Za-z]{2}$/, { message: 'iso2 must be a 2-letter country code' })
  iso2!: string;

  @ApiProperty({ type: 'string', enum: SERVICE_TYPES, example: 'sms' }) @IsIn(SERVICE_TYPES)
  serviceType!: (typeof SERVICE_TYPES)[number];

  /** Vendors in failover order; empty removes the route. */
  @ApiProperty({ type: [String], example: ['3'], maxItems: 4, description: 'vendor ids in failover order (the first connected one sends); an empty list removes the route' }) @IsArray() @ArrayMaxSize(4) @Matches(/^\d{1,18}$/, { each: true, message: 'each vendor id must be a decimal id' })
  vendorIds!: string[];
}

export class CustomerCountryRouteDto extends CountryRouteDto {
  @ApiProperty({ example: '2', description: 'the account (customer) the route is for' }) @IsString() @Matches(/^\d{1,18}$/, { message: 'customerId must be a decimal id' })
  customerId!: string;
}

export class CreateVendorDto {
  @ApiProperty({ example: 'Acme SMSC', description: 'a name for the console' }) @IsString() @Length(1, 120)
  name!: string;

  @ApiProperty({ type: 'string', enum: SERVICE_TYPES, example: 'sms', description: 'the channel the vendor carries' }) @IsIn(SERVICE_TYPES)
  service_type!: (typeof SERVICE_TYPES)[number];

  @ApiProperty({ type: 'string', enum: ADAPTERS, example: 'smpp', description: 'how the platform talks to the vendor: smpp (an SMSC over SMPP 3.4), simulator (accepts and reports by itself), whatsapp (Cloud API), telegram_bot, telegram_private' }) @IsIn(ADAPTERS)
  adapter!: (typeof ADAPTERS)[number];

  @ApiPropertyOptional({
    oneOf: [{ $ref: getSchemaPath(SmppVendorConfigDto) }, { $ref: getSchemaPath(SimulatorVendorConfigDto) }, { type: 'object', additionalProperties: true, description: 'whatsapp: baseUrl, apiVersion, accessToken, retryAfterMs; telegram_bot: baseUrl; telegram_private: none' }],
    example: { host: 'smsc.example.net', port: 2775, systemId: 'acme', password: 'secret', tps: 10 },
    description: 'the adapter\'s connection settings: SmppVendorConfigDto for smpp, SimulatorVendorConfigDto for simulator. Secrets (password, tokens) are masked in answers. The adapter (re)connects within about 5 s of a change.',
  })
  @IsOptional() @IsObject()
  config?: Record<string, unknown>;

  @ApiPropertyOptional({ example: 'Vodafone UK', description: 'the carrier behind the vendor (informational)' }) @IsOptional() @IsString() @MaxLength(120)
  carrier?: string;

  @ApiPropertyOptional({ example: 'Bulk SMS', description: 'the vendor\'s product name (informational)' }) @IsOptional() @IsString() @MaxLength(120)
  product_name?: string;

  @ApiPropertyOptional({ example: 'bulk-sms-uk', description: 'the vendor\'s product id (informational)' }) @IsOptional() @IsString() @MaxLength(120)
  product_id?: string;

  @ApiPropertyOptional({ example: 'EUR', description: 'the currency the vendor bills in (ISO 4217)' }) @IsOptional() @IsString() @Matches(/^[A-Z]{3}$/, { message: 'currency must be a 3-letter code' })
  currency?: string;

  @ApiPropertyOptional({ example: true, default: true, description: 'inactive vendors are disconnected and never route' }) @IsOptional() @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({ example: 1, minimum: 1, maximum: 4, description: 'the place of the vendor\'s channel in its service type\'s routing order when no country route applies (1 first)' }) @IsOptional() @IsInt() @Min(1) @Max(4)
  routingProvider?: number;
}

export class UpdateVendorDto {
  @ApiPropertyOptional({ example: 'Acme SMSC' }) @IsOptional() @IsString() @Length(1, 120)
  name?: string;

  @ApiPropertyOptional({
    oneOf: [{ $ref: getSchemaPath(SmppVendorConfigDto) }, { $ref: getSchemaPath(SimulatorVendorConfigDto) }, { type: 'object', additionalProperties: true }],
    example: { host: 'smsc.example.net', port: 2775, systemId: 'acme', password: 'secret', tps: 50 },
    description: 'replaces the whole connection settings (see CreateVendorDto.config)',
  })
  @IsOptional() @IsObject()
  config?: Record<string, unknown>;

  @ApiPropertyOptional({ example: 'Vodafone UK' }) @IsOptional() @IsString() @MaxLength(120)
  carrier?: string;

  @ApiPropertyOptional({ example: 'Bulk SMS' }) @IsOptional() @IsString() @MaxLength(120)
  product_name?: string;

  @ApiPropertyOptional({ example: 'bulk-sms-uk' }) @IsOptional() @IsString() @MaxLength(120)
  product_id?: string;

  @ApiPropertyOptional({ example: 'EUR' }) @IsOptional() @IsString() @Matches(/^[A-Z]{3}$/, { message: 'currency must be a 3-letter code' })
  currency?: string;

  @ApiPropertyOptional({ example: true }) @IsOptional() @IsBoolean()
  active?: boolean;
}

export class UpdateChannelDto {
  @ApiPropertyOptional({ example: 'Acme SMSC' }) @IsOptional() @IsString() @Length(1, 120)
  name?: string;

  @ApiPropertyOptional({ example: true }) @IsOptional() @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({ type: [String], example: ['dlr'], description: 'how the vendor reports statuses, e.g. dlr (delivery receipts)' }) @IsOptional() @IsArray() @ArrayMinSize(0) @ArrayMaxSize(10) @IsString({ each: true })
  stsMethods?: string[];

  @ApiPropertyOptional({ example: 1, minimum: 1, maximum: 4, description: 'the channel\'s place in its service type\'s routing order (1 first)' }) @IsOptional() @IsInt() @Min(1) @Max(4)
  routingProvider?: number;
}
