import { ApiProperty } from '@nestjs/swagger';

/**
 * What this service's routes answer, for the OpenAPI document (/api/docs.json). The shapes mirror the services'
 * return types; examples are what a caller sees.
 */
export class CountryAvailabilityWorking_daysResponse {
  @ApiProperty({ type: Number, example: 1 })
  start!: number;

  @ApiProperty({ type: Number })
  end!: number;
}

export class CountryAvailabilityWorking_hoursResponse {
  @ApiProperty({ type: String, example: 'text' })
  start!: string;

  @ApiProperty({ type: String })
  end!: string;
}

export class CountryAvailabilityResponse {
  @ApiProperty({ type: () => CountryAvailabilityWorking_daysResponse })
  working_days!: CountryAvailabilityWorking_daysResponse;

  @ApiProperty({ type: () => CountryAvailabilityWorking_hoursResponse })
  working_hours!: CountryAvailabilityWorking_hoursResponse;
}

export class TimezoneResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String, example: 'GB' })
  countryCode!: string;

  @ApiProperty({ type: String, example: 'GB', description: 'IRI of the country.' })
  country!: string;

  @ApiProperty({ type: Number, description: 'Standard offset from UTC and the offset during daylight saving time, minutes.' })
  utcOffset!: number;

  @ApiProperty({ type: Number })
  dstOffset!: number;
}

export class CountryResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String, example: 'GB' })
  iso2!: string;

  @ApiProperty({ type: String })
  iso3!: string;

  @ApiProperty({ type: () => CountryAvailabilityResponse })
  availability!: CountryAvailabilityResponse;

  @ApiProperty({ type: () => [TimezoneResponse] })
  timezones!: TimezoneResponse[];

  @ApiProperty({ type: Number, description: 'Minutes between the westernmost and easternmost standard offsets of the country.' })
  timezonesGap!: number;

  @ApiProperty({ type: () => TimezoneResponse, nullable: true })
  defaultTimezone!: TimezoneResponse;

  @ApiProperty({ type: Boolean, description: 'Whether the current account overrides the sending hours or default time zone.' })
  overridden!: boolean;
}

export class CountryPriceResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String, example: 'GB' })
  iso2!: string;

  @ApiProperty({ type: String })
  iso3!: string;

  @ApiProperty({ type: Number, nullable: true, example: 0.05 })
  pricePerSegment!: number;

  @ApiProperty({ type: String, nullable: true })
  pricePerSegmentMicros!: string;

  @ApiProperty({ type: String, example: 'EUR' })
  currency!: string;

  @ApiProperty({ type: String, example: 'EUR' })
  currencySign!: string;

  @ApiProperty({ type: Boolean })
  overridden!: boolean;
}

export class SendingHoursResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String, example: 'GB' })
  iso2!: string;

  @ApiProperty({ type: () => CountryAvailabilityResponse })
  availability!: CountryAvailabilityResponse;

  @ApiProperty({ type: String, example: 'Europe/London' })
  defaultTimezone!: string;

  @ApiProperty({ type: Number })
  timezonesGap!: number;

  @ApiProperty({ type: Boolean })
  overridden!: boolean;
}

export class GlobalCountryResponse {
  @ApiProperty({ type: Number, nullable: true, example: 0.05 })
  pricePerSegment!: number;

  @ApiProperty({ type: String, nullable: true })
  pricePerSegmentMicros!: string;

  @ApiProperty({ type: String, example: 'EUR' })
  priceCurrency!: string;

  @ApiProperty({ type: String, example: 'EUR' })
  currencySign!: string;

  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String, example: 'GB' })
  iso2!: string;

  @ApiProperty({ type: String })
  iso3!: string;

  @ApiProperty({ type: () => CountryAvailabilityResponse })
  availability!: CountryAvailabilityResponse;

  @ApiProperty({ type: () => [TimezoneResponse] })
  timezones!: TimezoneResponse[];

  @ApiProperty({ type: Number, description: 'Minutes between the westernmost and easternmost standard offsets of the country.' })
  timezonesGap!: number;

  @ApiProperty({ type: () => TimezoneResponse, nullable: true })
  defaultTimezone!: TimezoneResponse;
}

export class CustomerResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, nullable: true, example: '42' })
  customId!: string;

  @ApiProperty({ type: String, example: '42' })
  portalId!: string;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Acme' })
  shortName!: string;

  @ApiProperty({ type: Number })
  active!: number;

  @ApiProperty({ type: String, example: 'active' })
  status!: string;

  @ApiProperty({ type: Number, example: 0.05 })
  balance!: number;

  @ApiProperty({ type: String })
  balanceMicros!: string;

  @ApiProperty({ type: String, example: 'EUR' })
  currency!: string;

  @ApiProperty({ type: String, example: 'EUR' })
  currencySign!: string;

  @ApiProperty({ type: Number, example: 10 })
  tps!: number;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  createdAt!: string;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'object', additionalProperties: true } })
  customSettings!: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'object', additionalProperties: true } })
  genSettings!: Record<string, unknown>;
}

export class DropdownCustomerResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Acme' })
  shortName!: string;

  @ApiProperty({ type: String, example: 'active' })
  status!: string;

  @ApiProperty({ type: Number })
  active!: number;
}

export class FeatureRequestResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String })
  feature!: string;

  @ApiProperty({ type: String, example: 'Hello from Switchboard' })
  message!: string;

  @ApiProperty({ type: String, enum: ['accepted'], example: 'accepted' })
  status!: string;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  createdAt!: string;
}

export class DropdownOptionResponse {
  @ApiProperty({ type: String })
  key!: string;

  @ApiProperty({ type: String, example: 'Hello from Switchboard' })
  text!: string;

  @ApiProperty({ allOf: [{ oneOf: [{ type: 'string' }, { type: 'number' }] }] })
  value!: unknown;
}

export class BalanceEntryResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String })
  kind!: string;

  @ApiProperty({ type: Number, example: 0.05 })
  amount!: number;

  @ApiProperty({ type: String })
  amountMicros!: string;

  @ApiProperty({ type: String, example: 'EUR' })
  currency!: string;

  @ApiProperty({ type: Number, example: 0.05 })
  balanceAfter!: number;

  @ApiProperty({ type: String })
  balanceAfterMicros!: string;

  @ApiProperty({ type: String })
  reason!: string;

  @ApiProperty({ type: String, example: '42' })
  sourceId!: string;

  @ApiProperty({ type: Number, nullable: true })
  createdBy!: number;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  createdAt!: string;
}

export class AdjustmentResultResponse {
  @ApiProperty({ type: () => BalanceEntryResponse })
  entry!: BalanceEntryResponse;

  @ApiProperty({ type: Number, example: 0.05 })
  balance!: number;

  @ApiProperty({ type: String })
  balanceMicros!: string;

  @ApiProperty({ type: String, example: 'EUR' })
  currency!: string;

  @ApiProperty({ type: String, example: 'EUR' })
  currencySign!: string;
}

export class DailyUsageResponse {
  @ApiProperty({ type: Number, nullable: true, example: 1, description: 'customSettings.streams_max_messages_per_day; null = no limit.' })
  dailyLimit!: number;

  @ApiProperty({ type: Number })
  dailyUsage!: number;
}
