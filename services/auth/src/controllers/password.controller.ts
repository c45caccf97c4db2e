import { Body, Controller, HttpCode, Post, UseInterceptors } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal, Public, type Principal } from '@switchboard/platform';
import { ChangePasswordDto, CheckResetTokenDto, ResetPasswordDto, SendResetEmailDto } from '../dtos/password.dto';
import { RetryAfterInterceptor } from '../http/retry-after.interceptor';
import { PasswordResetService, type ResetAnswer } from '../services/password-reset.service';
import type { TokenPair } from '../services/token.service';

@ApiTags('users')
@Controller('users/reset_password')
@UseInterceptors(RetryAfterInterceptor)
export class PasswordController {
  constructor(private readonly passwords: PasswordResetService) {}

  @Post('send_email') @HttpCode(200) @Public()
  sendEmail(@Body() dto: SendResetEmailDto): Promise<ResetAnswer> { return this.passwords.sendEmail(dto.email); }

  @Post('check_token') @HttpCode(200) @Public()
  checkToken(@Body() dto: CheckResetTokenDto): Promise<ResetAnswer> { return this.passwords.checkToken(dto.email, dto.token); }

  @Post('update_password') @HttpCode(200) @Public()
  updatePassword(@Body() dto: ResetPasswordDto): Promise<ResetAnswer> { return this.passwords.updatePassword(dto.email, dto.token, dto.password); }

  @Post('logged_in_update_password') @HttpCode(200) @Authenticated()
  change(@CurrentPrincipal() p: Principal, @Body() dto: ChangePasswordDto): Promise<ResetAnswer & TokenPair> { return this.passwords.changePassword(p, dto.oldPassword, dto.password); }
}
