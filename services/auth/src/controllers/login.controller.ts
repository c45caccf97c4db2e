import { Body, Controller, HttpCode, Post, UseInterceptors } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal, Public, type Principal } from '@switchboard/platform';
import { LoginChallengeDto, LoginCheckDto, LoginManualDto, TokenPairDto, TokenRefreshDto } from '../dtos/login.dto';
import { RetryAfterInterceptor } from '../http/retry-after.interceptor';
import { LoginService } from '../services/login.service';
import { TokenService } from '../services/token.service';

@ApiTags('auth')
@Controller()
@UseInterceptors(RetryAfterInterceptor)
export class LoginController {
  constructor(
    private readonly login: LoginService,
    private readonly tokens: TokenService,
  ) {}

  @Post('login_check') @Public() @HttpCode(200) @ApiOkResponse({ type: LoginChallengeDto })
  loginCheck(@Body() dto: LoginCheckDto): Promise<LoginChallengeDto> { return this.login.requestPin(dto); }

  @Post('login/manual') @Public() @HttpCode(200) @ApiOkResponse({ type: TokenPairDto })
  loginManual(@Body() dto: LoginManualDto): Promise<TokenPairDto> { return this.login.signIn(dto); }

  @Post('token_refresh') @Public() @HttpCode(200) @ApiOkResponse({ type: TokenPairDto })
  tokenRefresh(@Body() dto: TokenRefreshDto): Promise<TokenPairDto> { return this.tokens.refresh(dto.refresh_token); }

  /** Signing out: the caller's session ends; its refresh tokens stop at once and every service refuses its access tokens. */
  @Post('logout') @Authenticated() @HttpCode(204)
  logout(@CurrentPrincipal() p: Principal): Promise<void> { return this.tokens.signOut(p); }
}
