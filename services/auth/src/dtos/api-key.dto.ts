import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, ArrayMaxSize, IsArray, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

export class CreateApiKeyDto {
  @ApiProperty({ example: 'CRM sync' })
  @IsString()
  @IsNotEmpty({ message: 'errors.client.required' })
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ example: '10.0.0.0/8,2001:db8::1', description: 'comma-joined IPv4 (optional mask) and IPv6 entries; empty: any address', type: 'string' })
  @Allow() // a comma-joined string or an array; parsed entry by entry by the service
  ipAcl?: unknown;

  @ApiPropertyOptional({ enum: [1, 0], description: 'default 1', example: 'text' })
  @Allow() // 1/0 (or true/false); checked by the service
  active?: unknown;

  @ApiPropertyOptional({ type: [String], example: ['STREAM_VIEW'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  permissions?: string[];
}

export class UpdateApiKeyDto {
  @ApiPropertyOptional({ example: 'Acme' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ type: 'string', example: 'text' })
  @Allow()
  ipAcl?: unknown;

  @ApiPropertyOptional({ enum: [1, 0], example: 'text' })
  @Allow()
  active?: unknown;

  @ApiPropertyOptional({ type: [String], example: ['text'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  permissions?: string[];
}
