import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, ArrayMaxSize, ArrayMinSize, IsArray, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { IsRef } from './common';

export class CreateRoleDto {
  @ApiPropertyOptional({ example: 'Custom role name', description: 'made unique with " - N"; default "Custom role name" (or "Copy of X")' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ example: 'Role description' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @ApiPropertyOptional({ description: '1 (platform, default) or 2 (inbox); "platform" and "inbox" are accepted too', oneOf: [{ type: 'integer', enum: [1, 2] }, { type: 'string', enum: ['platform', 'inbox'] }], example: 1 })
  @Allow() // parsed by the service: a number or a name
  roleType?: unknown;

  @ApiPropertyOptional({ type: [String], example: ['STREAM_VIEW'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  permissions?: string[];

  @ApiPropertyOptional({ description: 'copy this role: its type, description and permissions, named "Copy of X"', oneOf: [{ type: 'integer' }, { type: 'string' }], example: '/api/user_roles/3' })
  @IsOptional()
  @IsRef()
  copyOf?: unknown;
}

export class UpdateRoleDto {
  @ApiPropertyOptional({ example: 'Acme' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ example: 'Order notifications' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @ApiPropertyOptional({ description: 'cannot change; accepted when equal to the current type', oneOf: [{ type: 'integer', enum: [1, 2] }, { type: 'string', enum: ['platform', 'inbox'] }], example: 1 })
  @Allow()
  roleType?: unknown;

  @ApiPropertyOptional({ type: [String], example: ['STREAM_VIEW', 'STREAM_TOKEN'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  permissions?: string[];
}

export class InboxRolePermissionsDto {
  @ApiProperty({ description: 'role id or /api/user_roles/{id}', oneOf: [{ type: 'integer' }, { type: 'string', example: '/api/user_roles/3' }], example: 3 })
  @IsRef()
  id: unknown;

  @ApiProperty({ type: [String], example: ['INBOX_VIEW'] })
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  permissions: string[];
}

export class UpdateInboxRolesDto {
  @ApiProperty({ type: [InboxRolePermissionsDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => InboxRolePermissionsDto)
  roles: InboxRolePermissionsDto[];
}

export class AssignRolesDto {
  @ApiProperty({ description: 'the member (user id or /api/users/{id})', type: 'string', example: '42' })
  @IsNotEmpty()
  @IsRef()
  userId: unknown;

  @ApiProperty({ description: 'one platform role and one inbox role (ids or IRIs); [] leaves the member with no role', example: [3, 4], type: [String] })
  @IsArray()
  @ArrayMaxSize(2)
  @IsRef({ each: true })
  user_roles_ids: unknown[];
}
