import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, ArrayMaxSize, IsArray, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

export class CreateApiKeyDto {
  @ApiProperty({ example: 'CRM sync' })
  @IsString()
  @IsNotEmpty({ message: 'errors.client.required' })
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ example: ['203.0.113.10', '198.51.100.0/24'], description: 'comma-joined IPv4 (optional mask) and IPv6 entries; empty: any address', type: [String] })
  @Allow() // a comma-joined string or an array; parsed entry by entry by the service
  ipAcl?: unknown;

  @ApiPropertyOptional({ type: 'integer', enum: [1, 0], description: 'default 1', example: 1 })
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

  @ApiPropertyOptional({ type: [String], example: ['203.0.113.10'], description: 'replaces the IP ACL: comma-joined or an array; empty: any address' })
  @Allow()
  ipAcl?: unknown;

  @ApiPropertyOptional({ type: 'integer', enum: [1, 0], example: 1 })
  @Allow()
  active?: unknown;

  @ApiPropertyOptional({ type: [String], example: ['STREAM_VIEW'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  permissions?: string[];
}
