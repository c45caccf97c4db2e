import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsArray, IsBoolean, IsEmail, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';

export class CreateContactDto {
  @ApiProperty({ example: '+447911123456', description: 'international, or national with `country`' })
  @IsString()
  @MaxLength(64)
  phone: string;

  @ApiPropertyOptional({ nullable: true, type: 'string', example: 'Jane' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(255)
  firstName?: string | null;

  @ApiPropertyOptional({ nullable: true, type: 'string', example: 'Doe' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(255)
  lastName?: string | null;

  @ApiPropertyOptional({ nullable: true, type: 'string', example: 'jane@example.com' })
  @ValidateIf((_, v) => v !== null && v !== undefined && v !== '')
  @IsEmail()
  @MaxLength(320)
  email?: string | null;

  @ApiPropertyOptional({ description: 'ISO 3166 alpha-2: the region of a national number', example: 'GB' })
  @IsOptional()
  @Matches(/^[A-Za-z]{2}$/, { message: 'must be an ISO 3166 alpha-2 code' })
  country?: string;

  @ApiPropertyOptional({ nullable: true, description: 'IANA zone; default: the country of the number', type: 'string', example: 'Europe/London' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(64)
  timezone?: string | null;

  @ApiPropertyOptional({ description: 'custom variable values by name or id; null or "" removes one', example: { promoCode: 'SPRING24' }, type: 'object', additionalProperties: { type: 'string', nullable: true } })
  @Allow() // checked key by key against the account's variables
  variables?: unknown;

  @ApiPropertyOptional({ type: [String], description: 'ids or IRIs of contact lists (type list) to add the contact to', example: ['/api/contact_lists/12'] })
  @IsOptional()
  @IsArray()
  @Allow()
  contactLists?: unknown[];
}

export class UpdateContactDto {
  @ApiPropertyOptional({ example: '+447400123456' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  phone?: string;

  @ApiPropertyOptional({ nullable: true, type: 'string', example: 'Jane' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(255)
  firstName?: string | null;

  @ApiPropertyOptional({ nullable: true, type: 'string', example: 'Doe' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(255)
  lastName?: string | null;

  @ApiPropertyOptional({ nullable: true, type: 'string', example: 'jane@example.com' })
  @ValidateIf((_, v) => v !== null && v !== undefined && v !== '')
  @IsEmail()
  @MaxLength(320)
  email?: string | null;

  @ApiPropertyOptional({ example: 'GB' })
  @IsOptional()
  @Matches(/^[A-Za-z]{2}$/, { message: 'must be an ISO 3166 alpha-2 code' })
  country?: string;

  @ApiPropertyOptional({ nullable: true, type: 'string', example: 'Europe/London' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(64)
  timezone?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', nullable: true }, example: { city: 'Leeds' }, description: 'custom variable values by variable name; null removes one' })
  @Allow()
  variables?: unknown;

  @ApiPropertyOptional({ type: [String], description: 'replaces the contact lists (type list) the contact is in', example: ['/api/contact_lists/12'] })
  @IsOptional()
  @IsArray()
  @Allow()
  contactLists?: unknown[];

  @ApiPropertyOptional({ description: 'true opts the contact out (sets optedOutAt); an opt-out cannot be undone', example: true })
  @IsOptional()
  @IsBoolean()
  optedOut?: boolean;
}

export type { ContactDto } from '@switchboard/contracts';
