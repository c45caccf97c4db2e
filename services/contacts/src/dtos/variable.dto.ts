import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';

export const CUSTOM_VARIABLE_TYPES = ['text', 'number', 'date'] as const;

export class CreateVariableDto {
  @ApiProperty({ example: 'promoCode', description: 'letters, digits and underscore, starting with a letter; unique in the account' })
  @IsString()
  @Matches(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, { message: 'invalidKey' })
  name: string;

  @ApiPropertyOptional({ example: 'Promo code' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  UIname?: string;

  @ApiPropertyOptional({ enum: CUSTOM_VARIABLE_TYPES, default: 'text' })
  @IsOptional()
  @IsIn(CUSTOM_VARIABLE_TYPES)
  type?: (typeof CUSTOM_VARIABLE_TYPES)[number];

  @ApiPropertyOptional({ default: false, example: true })
  @IsOptional()
  @IsBoolean()
  hidden?: boolean;

  @ApiPropertyOptional({ nullable: true, example: 'SPRING24', type: 'string' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(255)
  example?: string | null;
}

export class UpdateVariableDto {
  @ApiPropertyOptional({ example: 'Acme' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, { message: 'invalidKey' })
  name?: string;

  @ApiPropertyOptional({ example: 'Acme' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  UIname?: string;

  @ApiPropertyOptional({ enum: CUSTOM_VARIABLE_TYPES })
  @IsOptional()
  @IsIn(CUSTOM_VARIABLE_TYPES)
  type?: (typeof CUSTOM_VARIABLE_TYPES)[number];

  @ApiPropertyOptional({ example: true })
  @IsOptional()
  @IsBoolean()
  hidden?: boolean;

  @ApiPropertyOptional({ nullable: true, type: 'string', example: 'Leeds' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(255)
  example?: string | null;
}

/** A contact's value of one variable: POST and PUT /api/contacts_variables. */
export class ContactVariableDto {
  @ApiProperty({ description: 'contact id or IRI /api/contacts/{id}', oneOf: [{ type: 'integer' }, { type: 'string' }], example: '/api/contacts/42' })
  @IsString({ each: false, message: 'must be an id or an IRI' })
  @ValidateIf((_, v) => typeof v !== 'number')
  contact: string | number;

  @ApiProperty({ description: 'variable id, IRI /api/variables/{id}, or name', oneOf: [{ type: 'integer' }, { type: 'string' }], example: 'city' })
  @ValidateIf((_, v) => typeof v !== 'number')
  @IsString()
  variable: string | number;

  @ApiProperty({ nullable: true, description: 'null or "" removes the value', type: 'string', example: 'Leeds' })
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(1000)
  value: string | null;
}

/** PUT /api/contacts_variables/{contact}: the contact is in the path. */
export class ContactVariableValueDto {
  @ApiProperty({ description: 'variable id, IRI /api/variables/{id}, or name', oneOf: [{ type: 'integer' }, { type: 'string' }], example: 'city' })
  @ValidateIf((_, v) => typeof v !== 'number')
  @IsString()
  variable: string | number;

  @ApiProperty({ nullable: true, description: 'null or "" removes the value', type: 'string', example: 'Leeds' })
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(1000)
  value: string | null;
}

export type { VariableDto } from '@switchboard/contracts';
