import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, ArrayMaxSize, IsBoolean, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { STREAM_TYPES } from '../rules/stream-params';

/** Statuses a customer may choose; restricted (-10) is a super admin's. */
export const USER_STREAM_STATUSES = [0, -1, 2];
export const ALL_STREAM_STATUSES = [-10, -1, 0, 1, 2];

export class UpdateStreamDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @IsNotEmpty() @Matches(/\S/, { message: 'name must not be blank' }) @MaxLength(255)
  name?: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2000)
  description?: string;

  @ApiPropertyOptional({ description: 'ready 0, disabled -1, draft 2; restricted -10 by super admins only' }) @IsOptional() @IsInt() @IsIn(ALL_STREAM_STATUSES)
  status?: number;

  @ApiPropertyOptional({ nullable: true }) @IsOptional() @IsString() @MaxLength(64)
  staticServiceType?: string | null;

  @ApiPropertyOptional({ description: 'IPv4 (optional mask) or IPv6 entries, as an array or comma-joined', type: [String] }) @Allow()
  ipAcl?: string[] | string;

  @ApiPropertyOptional({ nullable: true, description: 'default sender ID of SMS streams' }) @Allow()
  sender?: string | null;

  @ApiPropertyOptional({ type: [String] }) @IsOptional() @ArrayMaxSize(50) @IsString({ each: true }) @MaxLength(64, { each: true })
  streamTags?: string[];

  @ApiPropertyOptional() @IsOptional() @IsBoolean()
  enableSending?: boolean;

  @ApiPropertyOptional() @IsOptional() @IsBoolean()
  isDefault?: boolean;

  @ApiPropertyOptional({ description: 'code_generator, code_length, ttl, max_attempts, max_attempts_ip, max_failures, cool_down_time, otp_message, auth_token, business_id, phone_number, otp_code, check_ip_acl, tps' })
  @IsOptional()
  @IsObject()
  params?: Record<string, unknown>;
}

export class CreateStreamDto extends UpdateStreamDto {
  @ApiProperty() @IsString() @IsNotEmpty() @Matches(/\S/, { message: 'name must not be blank' }) @MaxLength(255)
  declare name: string;

  @ApiProperty({ description: 'marketing 1, transactional 2, OTP 3, two-way 4, WhatsApp 5, Telegram bot 7, Telegram private 8' }) @IsInt() @IsIn(STREAM_TYPES)
  streamType: number;
}

export class ResetTokenDto {
  @ApiProperty() @Allow()
  id: number | string;
}

export class DemoSendDto {
  @ApiProperty() @Allow()
  streamId: number | string;

  @ApiPropertyOptional() @Allow()
  message?: string;

  @ApiPropertyOptional() @Allow()
  phone?: string;

  @ApiPropertyOptional() @Allow()
  sender?: string;

  @ApiPropertyOptional({ description: 'WhatsApp template or media' }) @Allow()
  payload?: Record<string, unknown>;
}

export class SubscribeDto {
  @ApiProperty({ description: 'time slice: day, week, month, year, custom, all (or 1 to 4)' }) @Allow()
  type: string | number;

  @ApiPropertyOptional({ description: 'a day inside the slice (ISO date); default today' }) @IsOptional() @IsString()
  date?: string;

  @ApiPropertyOptional() @IsOptional() @IsString()
  start?: string;

  @ApiPropertyOptional() @IsOptional() @IsString()
  end?: string;

  @ApiPropertyOptional() @Allow()
  streamId?: number | string;
}

export class PreviewWhatsAppDto {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(1024)
  auth_token: string;

  @ApiProperty() @IsString() @Matches(/^\d{5,32}$/, { message: 'business_id is a numeric id' })
  business_id: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(32)
  phone_number?: string;
}

export class PreviewTelegramDto {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(200)
  auth_token: string;
}

export class InboxMappingDto {
  @ApiProperty() @Allow()
  streamId: number | string;

  @ApiProperty({ type: [Number] }) @Allow()
  roleIds: Array<number | string>;
}
