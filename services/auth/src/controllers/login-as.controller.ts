import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { Authenticated, CurrentPrincipal, Permissions, type Principal } from '@switchboard/platform';
import { LoginAsDto } from '../dtos/login-as.dto';
import { CurrentSessionId } from '../http/current-session.decorator';
import { LoginAsService, type LoginAsAnswer } from '../services/login-as.service';
import { LoginAsExitResponse, LoginAsResponse } from '../dtos/responses.dto';

/** Admins are the account's tenant owners (and super admins, who hold every permission). */
@ApiTags('auth')
@ApiBearerAuth()
@Controller('login-as')
export class LoginAsController {
  constructor(private readonly loginAs: LoginAsService) {}

  @ApiOkResponse({ type: LoginAsResponse })
  @Post() @HttpCode(200) @Permissions(Permission.TenantOwner)
  start(@CurrentPrincipal() p: Principal, @Body() dto: LoginAsDto): Promise<LoginAsAnswer> { return this.loginAs.loginAs(p, dto.email); }

  @ApiOkResponse({ type: LoginAsExitResponse })
  @Post('exit') @HttpCode(200) @Authenticated()
  exit(@CurrentPrincipal() p: Principal, @CurrentSessionId() sid: string | null): Promise<{ status: 1 }> { return this.loginAs.exit(p, sid); }
}
