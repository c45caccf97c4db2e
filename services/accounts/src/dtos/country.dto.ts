import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, Matches, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { DiffersFrom, IsCurrencyCode, IsDecimalAmount, IsTimezoneRef } from './validators';

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

export class WorkingDaysDto {
  @ApiProperty({ minimum: 1, maximum: 7, description: 'ISO weekday, 1 = Monday', example: 1 }) @IsInt() @Min(1) @Max(7)
  start: number;

  @ApiProperty({ minimum: 1, maximum: 7, example: 5 }) @IsInt() @Min(1) @Max(7)
  end: number;
}

export class WorkingHoursDto {
  @ApiProperty({ example: '09:00' }) @Matches(HHMM, { message: '$property must be HH:MM' })
  start: string;

  @ApiProperty({ example: '20:00' }) @Matches(HHMM, { message: '$property must be HH:MM' }) @DiffersFrom('start')
  end: string;
}

export class AvailabilityDto {
  @ApiProperty({ type: WorkingDaysDto }) @IsDefined() @ValidateNested() @Type(() => WorkingDaysDto)
  working_days: WorkingDaysDto;

  @ApiProperty({ type: WorkingHoursDto }) @IsDefined() @ValidateNested() @Type(() => WorkingHoursDto)
  working_hours: WorkingHoursDto;
}

/** PUT /countries/global/{id} (super admin). */
export class GlobalCountryDto {
  @ApiPropertyOptional({ type: AvailabilityDto }) @IsOptional() @ValidateNested() @Type(() => AvailabilityDto)
  availability?: AvailabilityDto;

  @ApiPropertyOptional({ description: 'IANA name, timezone id or /api/timezones/{id}; one of the country zones', type: 'string', example: 'Europe/London' }) @IsOptional() @IsTimezoneRef()
  defaultTimezone?: string | number;

  @ApiPropertyOptional({ nullable: true, description: 'price of one SMS segment in currency units; null removes it', type: 'number', example: 0.05 })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsDecimalAmount({ min: 0 })
  pricePerSegment?: number | string | null;

  @ApiPropertyOptional({ example: 'EUR' }) @IsOptional() @IsCurrencyCode()
  priceCurrency?: string;
}

/** PUT /countries/{id}: the current account's override; null returns a field to the global value. */
export class CountryOverrideDto {
  @ApiPropertyOptional({ type: AvailabilityDto, nullable: true })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @ValidateNested()
  @Type(() => AvailabilityDto)
  availability?: AvailabilityDto | null;

  @ApiPropertyOptional({ nullable: true, type: 'string', example: 'Europe/London' }) @ValidateIf((_, v) => v !== null && v !== undefined) @IsTimezoneRef()
  defaultTimezone?: string | number | null;

  @ApiPropertyOptional({ nullable: true, description: 'super admins only; in the account currency', type: 'number', example: 0.05 })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsDecimalAmount({ min: 0 })
  pricePerSegment?: number | string | null;
}
