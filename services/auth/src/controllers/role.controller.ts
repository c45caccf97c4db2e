import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission, type PermissionGroup } from '@switchboard/contracts';
import { ApiListResponse, CurrentPrincipal, Permissions, type ListResult, type Principal } from '@switchboard/platform';
import { CreateRoleDto, UpdateInboxRolesDto, UpdateRoleDto } from '../dtos/role.dto';
import { IdPipe } from '../http/id.pipe';
import { RoleService, type RoleDto } from '../services/role.service';
import { PermissionGroupResponse, RoleResponse } from '../dtos/responses.dto';

// Static paths before `:id`: Express takes the first route that matches.
@ApiTags('user_roles')
@ApiBearerAuth()
@Controller('user_roles')
export class RoleController {
  constructor(private readonly roles: RoleService) {}

  @ApiQuery({ name: 'roleType', type: String, required: false, description: '1 (platform) or 2 (inbox); platform and inbox are accepted too', example: '1' })
  @ApiListResponse(RoleResponse)
  @Get() @Permissions(Permission.UserRoleView)
  list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>): Promise<ListResult<RoleDto>> { return this.roles.list(p, q); }

  @ApiOkResponse({ type: [PermissionGroupResponse] })
  @Get('permissions') @Permissions(Permission.UserRoleView)
  permissions(): readonly PermissionGroup[] { return this.roles.permissionGroups(); }

  @ApiListResponse(RoleResponse)
  @Get('inbox') @Permissions(Permission.UserRoleView)
  inbox(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>): Promise<ListResult<RoleDto>> { return this.roles.list(p, q, 'inbox'); }

  @ApiListResponse(RoleResponse)
  @Post('inbox/update') @HttpCode(200) @Permissions(Permission.UserRoleEdit)
  updateInbox(@CurrentPrincipal() p: Principal, @Body() dto: UpdateInboxRolesDto): Promise<ListResult<RoleDto>> { return this.roles.updateInbox(p, dto.roles); }

  @ApiOkResponse({ type: RoleResponse })
  @Get(':id') @Permissions(Permission.UserRoleView)
  get(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<RoleDto> { return this.roles.get(p, id); }

  @ApiCreatedResponse({ type: RoleResponse })
  @Post() @Permissions(Permission.UserRoleAdd)
  create(@CurrentPrincipal() p: Principal, @Body() dto: CreateRoleDto): Promise<RoleDto> { return this.roles.create(p, dto); }

  @ApiOkResponse({ type: RoleResponse })
  @Put(':id') @Permissions(Permission.UserRoleEdit)
  update(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string, @Body() dto: UpdateRoleDto): Promise<RoleDto> { return this.roles.update(p, id, dto); }

  @Delete(':id') @HttpCode(204) @Permissions(Permission.UserRoleDelete)
  delete(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<void> { return this.roles.delete(p, id); }
}
