import { Body, Controller, HttpCode, Post, UseInterceptors } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal, Public, type Principal } from '@switchboard/platform';
import { ChangePasswordDto, CheckResetTokenDto, ResetPasswordDto, SendResetEmailDto } from '../dtos/password.dto';
import { RetryAfterInterceptor } from '../http/retry-after.interceptor';
import { PasswordResetService, type ResetAnswer } from '../services/password-reset.service';
import type { TokenPair } from '../services/token.service';
import { PasswordChangeResponse, ResetResponse } from '../dtos/responses.dto';

@ApiTags('users')
@Controller('users/reset_password')
@UseInterceptors(RetryAfterInterceptor)
export class PasswordController {
  constructor(private readonly passwords: PasswordResetService) {}

  @ApiOkResponse({ type: ResetResponse })
  @Post('send_email') @HttpCode(200) @Public()
  sendEmail(@Body() dto: SendResetEmailDto): Promise<ResetAnswer> { return this.passwords.sendEmail(dto.email); }

  @ApiOkResponse({ type: ResetResponse })
  @Post('check_token') @HttpCode(200) @Public()
  checkToken(@Body() dto: CheckResetTokenDto): Promise<ResetAnswer> { return this.passwords.checkToken(dto.email, dto.token); }

  @ApiOkResponse({ type: ResetResponse })
  @Post('update_password') @HttpCode(200) @Public()
  updatePassword(@Body() dto: ResetPasswordDto): Promise<ResetAnswer> { return this.passwords.updatePassword(dto.email, dto.token, dto.password); }

  @ApiOkResponse({ type: PasswordChangeResponse })
  @Post('logged_in_update_password') @HttpCode(200) @Authenticated()
  change(@CurrentPrincipal() p: Principal, @Body() dto: ChangePasswordDto): Promise<ResetAnswer & TokenPair> { return this.passwords.changePassword(p, dto.oldPassword, dto.password); }
}
