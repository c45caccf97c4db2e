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
  @ApiProperty({ type: String, example: '09:00' })
  start!: string;

  @ApiProperty({ type: String, example: '20:00' })
  end!: string;
}

export class CountryAvailabilityResponse {
  @ApiProperty({ type: () => CountryAvailabilityWorking_daysResponse })
  working_days!: CountryAvailabilityWorking_daysResponse;

  @ApiProperty({ type: () => CountryAvailabilityWorking_hoursResponse })
  working_hours!: CountryAvailabilityWorking_hoursResponse;
}

export class TimezoneResponse {
  @ApiProperty({ type: Number, example: 88 })
  id!: number;

  @ApiProperty({ type: String, example: 'Africa/Abidjan' })
  name!: string;

  @ApiProperty({ type: String, example: 'BF' })
  countryCode!: string;

  @ApiProperty({ type: String, example: '/api/countries/21', description: 'IRI of the country.' })
  country!: string;

  @ApiProperty({ type: Number, description: 'Standard offset from UTC and the offset during daylight saving time, minutes.', example: 0 })
  utcOffset!: number;

  @ApiProperty({ type: Number, example: 0 })
  dstOffset!: number;
}

/** The country fields every country answer shares. */
export class CountryBaseResponse {
  @ApiProperty({ type: Number, example: 3 })
  id!: number;

  @ApiProperty({ type: String, example: 'Afghanistan' })
  name!: string;

  @ApiProperty({ type: String, example: 'AF' })
  iso2!: string;

  @ApiProperty({ type: String, example: 'AFG' })
  iso3!: string;

  @ApiProperty({ type: () => CountryAvailabilityResponse })
  availability!: CountryAvailabilityResponse;

  @ApiProperty({ type: () => [TimezoneResponse] })
  timezones!: TimezoneResponse[];

  @ApiProperty({ type: Number, description: 'Minutes between the westernmost and easternmost standard offsets of the country.', example: 0 })
  timezonesGap!: number;

  @ApiProperty({ type: () => TimezoneResponse, nullable: true })
  defaultTimezone!: TimezoneResponse;

}

export class CountryResponse extends CountryBaseResponse {
  @ApiProperty({ type: Boolean, description: 'Whether the current account overrides the sending hours or default time zone.', example: false })
  overridden!: boolean;
}

export class CountryPriceResponse {
  @ApiProperty({ type: Number, example: 3 })
  id!: number;

  @ApiProperty({ type: String, example: 'Afghanistan' })
  name!: string;

  @ApiProperty({ type: String, example: 'AF' })
  iso2!: string;

  @ApiProperty({ type: String, example: 'AFG' })
  iso3!: string;

  @ApiProperty({ type: Number, nullable: true, example: 0.05 })
  pricePerSegment!: number;

  @ApiProperty({ type: String, nullable: true })
  pricePerSegmentMicros!: string;

  @ApiProperty({ type: String, example: 'EUR' })
  currency!: string;

  @ApiProperty({ type: String, example: '€' })
  currencySign!: string;

  @ApiProperty({ type: Boolean, example: false })
  overridden!: boolean;
}

export class SendingHoursResponse {
  @ApiProperty({ type: Number, example: 3 })
  id!: number;

  @ApiProperty({ type: String, example: 'Afghanistan' })
  name!: string;

  @ApiProperty({ type: String, example: 'AF' })
  iso2!: string;

  @ApiProperty({ type: () => CountryAvailabilityResponse })
  availability!: CountryAvailabilityResponse;

  @ApiProperty({ type: String, example: 'Asia/Kabul' })
  defaultTimezone!: string;

  @ApiProperty({ type: Number, example: 0 })
  timezonesGap!: number;

  @ApiProperty({ type: Boolean, example: false })
  overridden!: boolean;
}

export class GlobalCountryResponse extends CountryBaseResponse {
  @ApiProperty({ type: Number, nullable: true, example: 0.035 })
  pricePerSegment!: number;

  @ApiProperty({ type: String, nullable: true, example: '35000' })
  pricePerSegmentMicros!: string;

  @ApiProperty({ type: String, example: 'EUR' })
  priceCurrency!: string;

  @ApiProperty({ type: String, example: '€' })
  currencySign!: string;
}

export class CustomerResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, nullable: true, example: '42' })
  customId!: string;

  @ApiProperty({ type: String, example: '42' })
  portalId!: string;

  @ApiProperty({ type: String, example: 'Demo account' })
  name!: string;

  @ApiProperty({ type: String, nullable: true, example: 'DA' })
  shortName!: string;

  @ApiProperty({ type: Number, example: 1 })
  active!: number;

  @ApiProperty({ type: String, example: 'active' })
  status!: string;

  @ApiProperty({ type: Number, example: 1099.93 })
  balance!: number;

  @ApiProperty({ type: String, example: '1099930000' })
  balanceMicros!: string;

  @ApiProperty({ type: String, example: 'EUR' })
  currency!: string;

  @ApiProperty({ type: String, example: '€' })
  currencySign!: string;

  @ApiProperty({ type: Number, example: 100 })
  tps!: number;

  @ApiProperty({ type: String, example: '2026-11-25T16:39:40.124Z' })
  createdAt!: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  customSettings!: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: true })
  genSettings!: Record<string, unknown>;
}

export class DropdownCustomerResponse {
  @ApiProperty({ type: Number, example: 1 })
  id!: number;

  @ApiProperty({ type: String, example: 'Demo account' })
  name!: string;

  @ApiProperty({ type: String, nullable: true, example: 'DA' })
  shortName!: string;

  @ApiProperty({ type: String, example: 'active' })
  status!: string;

  @ApiProperty({ type: Number, example: 1 })
  active!: number;
}

export class FeatureRequestResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String })
  feature!: string;

  @ApiProperty({ type: String, example: 'Please enable WhatsApp for our account' })
  message!: string;

  @ApiProperty({ type: String, enum: ['accepted'], example: 'accepted' })
  status!: string;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  createdAt!: string;
}

export class DropdownOptionResponse {
  @ApiProperty({ type: String })
  key!: string;

  @ApiProperty({ type: String, example: 'Demo account' })
  text!: string;

  @ApiProperty({ allOf: [{ oneOf: [{ type: 'string' }, { type: 'number' }] }] })
  value!: unknown;
}

export class BalanceEntryResponse {
  @ApiProperty({ type: Number, example: 4 })
  id!: number;

  @ApiProperty({ type: String, example: 'adjustment' })
  kind!: string;

  @ApiProperty({ type: Number, example: 1000 })
  amount!: number;

  @ApiProperty({ type: String, example: '1000000000' })
  amountMicros!: string;

  @ApiProperty({ type: String, example: 'EUR' })
  currency!: string;

  @ApiProperty({ type: Number, example: 1099.93 })
  balanceAfter!: number;

  @ApiProperty({ type: String, example: '1099930000' })
  balanceAfterMicros!: string;

  @ApiProperty({ type: String, example: 'top-up for the 20,000-message send' })
  reason!: string;

  @ApiProperty({ type: String, example: '97c69ad5-3d43-4260-9c34-93cd19f735c2' })
  sourceId!: string;

  @ApiProperty({ type: Number, nullable: true, example: 1 })
  createdBy!: number;

  @ApiProperty({ type: String, example: '2026-11-25T16:40:04.103Z' })
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
  @ApiProperty({ type: Number, nullable: true, example: 50000, description: 'customSettings.streams_max_messages_per_day; null = no limit.' })
  dailyLimit!: number;

  @ApiProperty({ type: Number, example: 2 })
  dailyUsage!: number;
}
