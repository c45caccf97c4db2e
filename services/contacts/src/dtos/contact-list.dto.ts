import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsIn, IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';

export class CreateContactListDto {
  @ApiProperty({ example: 'VIP customers' })
  @IsString()
  @MinLength(1, { message: 'errors.client.required' })
  @MaxLength(255)
  name: string;

  @ApiPropertyOptional({ nullable: true, type: 'string', example: 'Order notifications' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ enum: ['list', 'segment'], description: 'default: segment when a filter is given, else list', example: 'list' })
  @IsOptional()
  @IsIn(['list', 'segment'])
  type?: 'list' | 'segment';

  @ApiPropertyOptional({ description: 'segment filter, as an object or its JSON text: { match?: "all"|"any", groups: [...] }', oneOf: [{ type: 'object', additionalProperties: true }, { type: 'string' }], example: { match: 'all', groups: [{ match: 'all', rules: [{ field: 'country', operator: 'eq', value: 'GB' }] }] } })
  @Allow() // parsed by the filter schema, which reports each bad path
  filter?: unknown;
}

export class UpdateContactListDto {
  @ApiPropertyOptional({ example: 'Acme' })
  @IsOptional()
  @IsString()
  @MinLength(1, { message: 'errors.client.required' })
  @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({ nullable: true, type: 'string', example: 'Order notifications' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ description: 'segments only', oneOf: [{ type: 'object', additionalProperties: true }, { type: 'string' }], example: { match: 'all', groups: [{ match: 'all', rules: [{ field: 'country', operator: 'eq', value: 'GB' }] }] } })
  @Allow()
  filter?: unknown;
}

export class TotalByFilterDto {
  @ApiProperty({ description: 'segment filter, object or JSON text', oneOf: [{ type: 'object', additionalProperties: true }, { type: 'string' }], example: { match: 'all', groups: [{ match: 'all', rules: [{ field: 'country', operator: 'eq', value: 'GB' }] }] } })
  @Allow()
  filter: unknown;
}

export type { ImportSummaryDto, ContactListDto } from '@switchboard/contracts';
