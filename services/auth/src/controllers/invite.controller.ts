import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { ApiListResponse, Authenticated, CurrentPrincipal, Permissions, Public, type ListResult, type Principal } from '@switchboard/platform';
import { CreateInviteDto, InviteLinkDto, RegisterDto, UpdateInviteDto } from '../dtos/invite.dto';
import { IdPipe } from '../http/id.pipe';
import { InviteService, type InviteAcceptedDto, type InviteCheckDto, type InviteDto } from '../services/invite.service';
import { InviteAcceptedResponse, InviteCheckResponse, InviteResponse } from '../dtos/responses.dto';

@ApiTags('user_invites')
@ApiBearerAuth()
@Controller('user_invites')
export class InviteController {
  constructor(private readonly invites: InviteService) {}

  @ApiOkResponse({ type: InviteCheckResponse })
  @Post('check') @HttpCode(200) @Public()
  check(@Body() dto: InviteLinkDto): Promise<InviteCheckDto> { return this.invites.check(dto); }

  @ApiOkResponse({ type: InviteAcceptedResponse })
  @Post('register') @HttpCode(200) @Public()
  register(@Body() dto: RegisterDto): Promise<InviteAcceptedDto> { return this.invites.register(dto); }

  @ApiOkResponse({ type: InviteAcceptedResponse })
  @Post('accept') @HttpCode(200) @Authenticated()
  accept(@CurrentPrincipal() p: Principal, @Body() dto: InviteLinkDto): Promise<InviteAcceptedDto> { return this.invites.accept(p, dto); }

  @ApiListResponse(InviteResponse)
  @Get() @Permissions(Permission.UserInviteView)
  list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>): Promise<ListResult<InviteDto>> { return this.invites.list(p, q); }

  @ApiOkResponse({ type: InviteResponse })
  @Get(':id') @Permissions(Permission.UserInviteView)
  get(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<InviteDto> { return this.invites.get(p, id); }

  @ApiCreatedResponse({ type: InviteResponse })
  @Post() @Permissions(Permission.UserInviteAdd)
  create(@CurrentPrincipal() p: Principal, @Body() dto: CreateInviteDto): Promise<InviteDto> { return this.invites.create(p, dto); }

  @ApiOkResponse({ type: InviteResponse })
  @Post(':id/resend') @HttpCode(200) @Permissions(Permission.UserInviteAdd)
  resend(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<InviteDto> { return this.invites.resend(p, id); }

  @ApiOkResponse({ type: InviteResponse })
  @Put(':id') @Permissions(Permission.UserInviteEdit)
  update(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string, @Body() dto: UpdateInviteDto): Promise<InviteDto> { return this.invites.update(p, id, dto); }

  @Delete(':id') @HttpCode(204) @Permissions(Permission.UserInviteDelete)
  delete(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<void> { return this.invites.delete(p, id); }
}
