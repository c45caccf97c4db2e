import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AccountStatus } from '@switchboard/contracts';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { IsCurrencyCode, IsDecimalAmount, IsIdRef, NotBlank } from './validators';

const STATUSES = Object.values(AccountStatus);

export class CreateCustomerDto {
  @ApiProperty({ example: 'Acme' }) @IsString() @NotBlank() @MaxLength(255)
  name: string;

  @ApiPropertyOptional({ nullable: true, type: 'string', example: 'Acme' }) @ValidateIf((_, v) => v !== null && v !== undefined) @IsString() @MaxLength(32)
  shortName?: string | null;

  @ApiPropertyOptional({ nullable: true, description: 'the customer id in an external system', type: 'string', example: '42' }) @ValidateIf((_, v) => v !== null && v !== undefined) @IsString() @NotBlank() @MaxLength(64)
  customId?: string | null;

  @ApiPropertyOptional({ example: 'EUR' }) @IsOptional() @IsCurrencyCode()
  currency?: string;

  @ApiPropertyOptional({ example: 10 }) @IsOptional() @IsInt() @Min(0) @Max(100_000)
  tps?: number;

  @ApiPropertyOptional({ enum: [0, 1], description: 'default 1: created by a super admin, approved', example: 0 }) @IsOptional() @IsIn([0, 1])
  active?: number;

  @ApiPropertyOptional({ enum: STATUSES }) @IsOptional() @IsIn(STATUSES)
  status?: (typeof STATUSES)[number];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: {} }) @IsOptional() @IsObject()
  customSettings?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: {} }) @IsOptional() @IsObject()
  genSettings?: Record<string, unknown>;
}

/** Spec 7: PUT /customers/{id} (tps, name, shortName, customSettings). Members edit names; the rest is for super admins. */
export class UpdateCustomerDto {
  @ApiPropertyOptional({ example: 'Acme' }) @IsOptional() @IsString() @NotBlank() @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({ nullable: true, type: 'string', example: 'Acme' }) @ValidateIf((_, v) => v !== null && v !== undefined) @IsString() @MaxLength(32)
  shortName?: string | null;

  @ApiPropertyOptional({ description: 'super admins only', example: 10 }) @IsOptional() @IsInt() @Min(0) @Max(100_000)
  tps?: number;

  @ApiPropertyOptional({ description: 'partial; super admins only', type: 'object', additionalProperties: true, example: {} }) @IsOptional() @IsObject()
  customSettings?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'partial; super admins only', type: 'object', additionalProperties: true, example: {} }) @IsOptional() @IsObject()
  genSettings?: Record<string, unknown>;
}

export class CustomerStatusDto {
  @ApiProperty({ example: 5, oneOf: [{ type: 'integer' }, { type: 'string', example: '/api/customers/5' }] }) @IsIdRef()
  customer_id: number | string;

  @ApiProperty({ enum: STATUSES, example: 'active' }) @IsIn(STATUSES)
  status: (typeof STATUSES)[number];
}

export class ApproveCustomerDto {
  @ApiProperty({ example: 5, oneOf: [{ type: 'integer' }, { type: 'string', example: '/api/customers/5' }] }) @IsIdRef()
  customer_id: number | string;
}

export class BalanceAdjustmentDto {
  @ApiProperty({ example: '25.50', description: 'currency units, up to 6 decimals (a number or a decimal string); negative takes money off', oneOf: [{ type: 'string', pattern: '^-?\\d+(\\.\\d{1,6})?$' }, { type: 'number' }] }) @IsDecimalAmount({ nonZero: true })
  amount: number | string;

  @ApiProperty({ example: 'bank transfer 2026-11-25' }) @IsString() @NotBlank() @MaxLength(500)
  reason: string;
}

export class FeatureAccessRequestDto {
  @ApiProperty({ example: 'allow_whatsapp' }) @IsString() @Matches(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, { message: 'feature must be a feature key' })
  feature: string;

  @ApiPropertyOptional({ example: 'Hello from Switchboard' }) @IsOptional() @IsString() @MaxLength(2000)
  message?: string;
}

export const DROPDOWN_ENTITIES = ['customers', 'countries', 'timezones', 'currencies', 'statuses', 'generative_services', 'features'] as const;

export class DropdownDataDto {
  @ApiProperty({ enum: DROPDOWN_ENTITIES, example: 'customers' }) @IsIn(DROPDOWN_ENTITIES)
  entity: (typeof DROPDOWN_ENTITIES)[number];

  @ApiPropertyOptional({ example: 'Demo' }) @IsOptional() @IsString() @MaxLength(100)
  search?: string;
}

/** Spec 7: POST /customers/superadmin/all — the list contract in the body, with filters. */
export class SuperAdminCustomersDto {
  @ApiPropertyOptional({ example: 25 }) @IsOptional() @IsInt() @Min(1)
  page?: number;

  @ApiPropertyOptional({ example: 25 }) @IsOptional() @IsInt() @Min(1) @Max(2000)
  itemsPerPage?: number;

  @ApiPropertyOptional({ example: { name: 'asc' }, type: 'object', additionalProperties: true }) @IsOptional() @IsObject()
  order?: Record<string, string>;

  @ApiPropertyOptional({ description: 'name, short name, custom id or id', example: 'Demo' }) @IsOptional() @IsString() @MaxLength(255)
  search?: string;

  @ApiPropertyOptional({ enum: STATUSES, isArray: true }) @IsOptional() @IsIn(STATUSES, { each: true })
  status?: Array<(typeof STATUSES)[number]> | (typeof STATUSES)[number];

  @ApiPropertyOptional({ enum: [0, 1], example: 0 }) @IsOptional() @IsIn([0, 1])
  active?: number;
}
