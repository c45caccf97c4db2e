import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, ArrayMaxSize, IsBoolean, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { STREAM_TYPES } from '../rules/stream-params';

/** Statuses a customer may choose; restricted (-10) is a super admin's. */
export const USER_STREAM_STATUSES = [0, -1, 2];
export const ALL_STREAM_STATUSES = [-10, -1, 0, 1, 2];

export class UpdateStreamDto {
  @ApiPropertyOptional({ example: 'Acme' }) @IsOptional() @IsString() @IsNotEmpty() @Matches(/\S/, { message: 'name must not be blank' }) @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({ example: 'Order notifications' }) @IsOptional() @IsString() @MaxLength(2000)
  description?: string;

  @ApiPropertyOptional({ description: 'ready 0, disabled -1, draft 2; restricted -10 by super admins only', enum: ALL_STREAM_STATUSES }) @IsOptional() @IsInt() @IsIn(ALL_STREAM_STATUSES)
  status?: number;

  @ApiPropertyOptional({ nullable: true, type: 'string', example: 'sms' }) @IsOptional() @IsString() @MaxLength(64)
  staticServiceType?: string | null;

  @ApiPropertyOptional({ description: 'IPv4 (optional mask) or IPv6 entries, as an array or comma-joined', type: [String], example: ['203.0.113.10', '198.51.100.0/24'] }) @Allow()
  ipAcl?: string[] | string;

  @ApiPropertyOptional({ nullable: true, description: 'default sender ID of SMS streams', type: 'string', example: 'ACME' }) @Allow()
  sender?: string | null;

  @ApiPropertyOptional({ type: [String], example: ['orders'] }) @IsOptional() @ArrayMaxSize(50) @IsString({ each: true }) @MaxLength(64, { each: true })
  streamTags?: string[];

  @ApiPropertyOptional({ example: true }) @IsOptional() @IsBoolean()
  enableSending?: boolean;

  @ApiPropertyOptional({ example: true }) @IsOptional() @IsBoolean()
  isDefault?: boolean;

  @ApiPropertyOptional({ description: 'code_generator, code_length, ttl, max_attempts, max_attempts_ip, max_failures, cool_down_time, otp_message, auth_token, business_id, phone_number, otp_code, check_ip_acl, tps', type: 'object', additionalProperties: true, example: {} })
  @IsOptional()
  @IsObject()
  params?: Record<string, unknown>;
}

export class CreateStreamDto extends UpdateStreamDto {
  @ApiProperty({ example: 'Acme' }) @IsString() @IsNotEmpty() @Matches(/\S/, { message: 'name must not be blank' }) @MaxLength(255)
  declare name: string;

  @ApiProperty({ description: 'marketing 1, transactional 2, OTP 3, two-way 4, WhatsApp 5, Telegram bot 7, Telegram private 8', enum: STREAM_TYPES, example: 2 }) @IsInt() @IsIn(STREAM_TYPES)
  streamType: number;
}

export class ResetTokenDto {
  @ApiProperty({ oneOf: [{ type: 'integer' }, { type: 'string', example: '/api/streams/7' }], example: 7 }) @Allow()
  id: number | string;
}

export class DemoSendDto {
  @ApiProperty({ oneOf: [{ type: 'integer' }, { type: 'string', example: '/api/streams/7' }], example: 7 }) @Allow()
  streamId: number | string;

  @ApiPropertyOptional({ example: 'Hello from Switchboard' }) @Allow()
  message?: string;

  @ApiPropertyOptional({ example: '+447400123456' }) @Allow()
  phone?: string;

  @ApiPropertyOptional({ example: 'ACME' }) @Allow()
  sender?: string;

  @ApiPropertyOptional({ description: 'WhatsApp template or media', type: 'object', additionalProperties: true }) @Allow()
  payload?: Record<string, unknown>;
}

export class PreviewWhatsAppDto {
  @ApiProperty({ example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' }) @IsString() @IsNotEmpty() @MaxLength(1024)
  auth_token: string;

  @ApiProperty({ example: '102290129340398' }) @IsString() @Matches(/^\d{5,32}$/, { message: 'business_id is a numeric id' })
  business_id: string;

  @ApiPropertyOptional({ example: '+447400123456' }) @IsOptional() @IsString() @MaxLength(32)
  phone_number?: string;
}

export class PreviewTelegramDto {
  @ApiProperty({ example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' }) @IsString() @IsNotEmpty() @MaxLength(200)
  auth_token: string;
}

export class InboxMappingDto {
  @ApiProperty({ oneOf: [{ type: 'integer' }, { type: 'string', example: '/api/streams/7' }], example: 7 }) @Allow()
  streamId: number | string;

  @ApiProperty({ type: 'array', items: { oneOf: [{ type: 'integer' }, { type: 'string' }] }, example: [3] }) @Allow()
  roleIds: Array<number | string>;
}
