import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { ApiListResponse, AppError, CurrentPrincipal, Permissions, SuperAdmin, type ListResult, type Principal } from '@switchboard/platform';
import { AssignRolesDto } from '../dtos/role.dto';
import { UpdateMemberDto } from '../dtos/team.dto';
import { IdPipe } from '../http/id.pipe';
import { parseRef } from '../rules/refs';
import { TeamService, type MemberDto } from '../services/team.service';
import { MemberResponse, UserActiveResponse } from '../dtos/responses.dto';

const userRef = (v: unknown): string => {
  const id = parseRef(v, 'users');
  if (!id) throw AppError.validation([{ propertyPath: 'userId', message: 'must be a user id or /api/users/{id}', code: 'invalidRef' }]);
  return id;
};

/** Team members. Registered after UserController, so /users/connected and /users/async are matched first. */
@ApiTags('users')
@ApiBearerAuth()
@Controller('users')
export class TeamController {
  constructor(private readonly team: TeamService) {}

  @ApiListResponse(MemberResponse)
  @Get() @Permissions(Permission.UserInviteView)
  list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>): Promise<ListResult<MemberDto>> { return this.team.list(p, q); }

  @ApiOkResponse({ type: MemberResponse })
  @Post('roles') @HttpCode(200) @Permissions(Permission.UserInviteEdit)
  setRoles(@CurrentPrincipal() p: Principal, @Body() dto: AssignRolesDto): Promise<MemberDto> { return this.team.setRoles(p, userRef(dto.userId), dto.user_roles_ids); }

  @ApiOkResponse({ type: MemberResponse })
  @Get(':id') @Permissions(Permission.UserInviteView)
  get(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<MemberDto> { return this.team.get(p, id); }

  @ApiOkResponse({ type: MemberResponse })
  @Put(':id') @Permissions(Permission.UserInviteEdit)
  update(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string, @Body() dto: UpdateMemberDto): Promise<MemberDto> { return this.team.setStatus(p, id, dto.status); }

  /** Super admin: the user can no longer sign in anywhere; their tokens are refused within a second (docs/decisions/0029). */
  @ApiOkResponse({ type: UserActiveResponse })
  @Put(':id/disable') @SuperAdmin()
  disable(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<{ id: number; active: boolean }> { return this.team.setUserActive(p, id, false); }

  @ApiOkResponse({ type: UserActiveResponse })
  @Put(':id/enable') @SuperAdmin()
  enable(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<{ id: number; active: boolean }> { return this.team.setUserActive(p, id, true); }

  @Delete(':id') @HttpCode(204) @Permissions(Permission.UserInviteDelete)
  remove(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<void> { return this.team.remove(p, id); }
}
