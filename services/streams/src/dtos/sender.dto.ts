import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { SENDER_DECLINE_REASONS, SenderType } from '@switchboard/contracts';

export const SENDER_TYPES = Object.values(SenderType);

export class UpdateSenderDto {
  @ApiPropertyOptional({ example: 'Acme' }) @IsOptional() @IsString() @IsNotEmpty() @Matches(/\S/, { message: 'name must not be blank' }) @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({ description: 'sender ID: alphanumeric 3 to 11, or numeric up to 15 digits', example: 'ACME' }) @Allow()
  value?: string;

  @ApiPropertyOptional({ enum: SENDER_TYPES }) @IsOptional() @IsIn(SENDER_TYPES)
  type?: string;

  @ApiPropertyOptional({ nullable: true, description: 'ISO 3166 alpha-2', type: 'string', example: 'GB' }) @IsOptional() @IsString() @Matches(/^[A-Za-z]{2}$/, { message: 'country is an ISO alpha-2 code' })
  country?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) @IsOptional() @IsObject()
  defaultMetadata?: Record<string, unknown>;
}

export class CreateSenderDto extends UpdateSenderDto {
  @ApiProperty({ example: 'Acme' }) @IsString() @IsNotEmpty() @Matches(/\S/, { message: 'name must not be blank' }) @MaxLength(255)
  declare name: string;

  @ApiProperty({ example: 'ACME' }) @Allow()
  declare value: string;
}

export class ApproveSenderDto {
  @ApiProperty({ description: '1 approved, 2 declined (true/false accepted), 0 back to pending', oneOf: [{ type: 'integer', enum: [0, 1, 2] }, { type: 'boolean' }], example: 1 }) @Allow()
  approved: number | boolean;

  @ApiPropertyOptional({ enum: SENDER_DECLINE_REASONS, nullable: true }) @IsOptional() @IsIn([...SENDER_DECLINE_REASONS, null])
  declinedReason?: string | null;
}

export class KeywordDto {
  @ApiProperty({ example: 'casino' }) @IsString() @IsNotEmpty() @Matches(/\S/, { message: 'word must not be blank' }) @MaxLength(100)
  word: string;

  @ApiPropertyOptional({ description: '1 whole word (default), 2 anywhere in the text', enum: [1, 2], example: 1 }) @IsOptional() @IsIn([1, 2])
  type?: number;
}

export class StreamEventDto {
  @ApiPropertyOptional({ example: 'Acme' }) @IsOptional() @IsString() @IsNotEmpty() @Matches(/\S/, { message: 'name must not be blank' }) @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({ example: 'Hello from Switchboard' }) @IsOptional() @IsString() @MaxLength(4096)
  text?: string;

  @ApiPropertyOptional({ description: 'letters, digits, hyphen, underscore', example: 'order_shipped' }) @IsOptional() @IsString() @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'invalidKey' })
  eventKey?: string;

  @ApiPropertyOptional({ oneOf: [{ type: 'integer', enum: [0, 1] }, { type: 'boolean' }], example: 1 }) @IsOptional() @Allow()
  active?: boolean | number;

  @ApiPropertyOptional({ description: 'stream id or IRI /api/streams/{id}', oneOf: [{ type: 'integer' }, { type: 'string' }], example: '/api/streams/7' }) @Allow()
  stream?: number | string;
}

export class MessageResponseDto {
  @ApiPropertyOptional({ example: 'Hello from Switchboard' }) @Allow()
  message?: string;

  @ApiPropertyOptional({ example: '+447400123456' }) @Allow()
  phone?: string;

  @ApiPropertyOptional({ example: 'ACME' }) @Allow()
  sender?: string;

  @ApiPropertyOptional({ description: 'two-way or WhatsApp stream; default: the default two-way stream', oneOf: [{ type: 'integer' }, { type: 'string', example: '/api/streams/7' }], example: 7 }) @Allow()
  streamId?: number | string;
}
