import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Permission, SSO_BINDING_COOKIE, type CrossdomainAuthAnswer, type SsoAccessRequest, type SsoAwaitAnswer } from '@switchboard/contracts';
import { ApiErrors, CurrentPrincipal, Permissions, Public, type Principal } from '@switchboard/platform';
import { AUTH_OPTIONS, type ResolvedAuthOptions } from '../auth.options';
import { CrossdomainAuthDto, CrossdomainAuthResponse, SsoAccessRequestResponse, SsoAwaitDto, SsoAwaitResponse } from '../dtos/sso.dto';
import { IdPipe } from '../http/id.pipe';
import { SsoService } from '../sso/sso.service';

/** The binding cookie of the request, if any (no cookie parser is installed: one name is read by hand). */
export function bindingCookie(header: string | undefined): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === SSO_BINDING_COOKIE) return decodeURIComponent(part.slice(i + 1).trim()) || null;
  }
  return null;
}

/** Zoho Inbox single sign-on (spec 7 Auth: POST /sso/crossdomain_auth; docs/decisions/0042). */
@ApiTags('auth')
@Controller('sso')
export class SsoController {
  constructor(
    private readonly sso: SsoService,
    @Inject(AUTH_OPTIONS) private readonly options: ResolvedAuthOptions,
  ) {}

  /** Starts a sign-on: the popup's URL and the socket's cross_key; the HttpOnly cookie binds both to this browser. */
  @ApiOkResponse({ type: CrossdomainAuthResponse, description: 'also sets the HttpOnly binding cookie `sb_sso`' })
  @ApiErrors(
    { status: 429, code: 'TOO_MANY_REQUESTS', message: 'too many sign-ons started from this address: finish or wait for one to expire' },
    { status: 503, code: '0x0', message: 'Zoho Inbox sign-on is not configured on this installation: set ZOHO_CLIENT_ID and ZOHO_CLIENT_SECRET' },
  )
  @Post('crossdomain_auth') @Public() @HttpCode(200)
  async start(@Body() dto: CrossdomainAuthDto, @Res({ passthrough: true }) res: Response): Promise<CrossdomainAuthAnswer> {
    const { answer, binding, maxAge } = await this.sso.start(dto.type);
    res.cookie(SSO_BINDING_COOKIE, binding, { httpOnly: true, sameSite: 'lax', secure: this.options.appUrl.startsWith('https:'), path: '/', maxAge: maxAge * 1000 });
    res.setHeader('Cache-Control', 'no-store');
    return answer;
  }

  /** Zoho sends the popup back here; it goes on to /complete-sso, which closes it. */
  @ApiQuery({ name: 'code', type: String, required: false, example: '1000.7c96113574b7d8db83789676350d7e91.276c83e3d5ec39eb1ec3a40ed4219623' })
  @ApiQuery({ name: 'state', type: String, required: false, example: 'q2WJr8x1nKfH0b3tV7yLmA4cZp9sEuGdRiTkOwNhXjY' })
  @ApiQuery({ name: 'error', type: String, required: false, example: 'access_denied' })
  @ApiResponse({ status: 302, description: 'to /complete-sso (with `?status=unknown` when the state names no open flow); the outcome goes to the socket', headers: { Location: { description: 'the console page /complete-sso', schema: { type: 'string', example: 'https://app.example.com/complete-sso' } } } })
  @ApiErrors({ status: 500, code: '0x0', message: 'the outcome could not be recorded' })
  @Get('zohoinbox/callback') @Public()
  async callback(@Query() q: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const outcome = await this.sso.callback(q, bindingCookie(req.headers.cookie));
    res.setHeader('Cache-Control', 'no-store');
    // the code stays out of the next page's Referer
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.redirect(302, `${this.options.appUrl}/complete-sso${outcome === 'unknown' ? '?status=unknown' : ''}`);
  }

  /** Asked by the gateway's SSO socket for the browser (cookie forwarded): waiting, or the outcome (tokens once). */
  @ApiOkResponse({ type: SsoAwaitResponse })
  @ApiErrors({ status: 409, code: 'CONFLICT', message: 'this sign-on is already awaited elsewhere: start again' })
  @Post('crossdomain_auth/await') @Public() @HttpCode(200)
  async wait(@Body() dto: SsoAwaitDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<SsoAwaitAnswer> {
    res.setHeader('Cache-Control', 'no-store');
    return this.sso.await(dto.cross_key, dto.connection, bindingCookie(req.headers.cookie));
  }

  @ApiBearerAuth() @ApiOkResponse({ type: SsoAccessRequestResponse, isArray: true })
  @Get('access_requests') @Permissions(Permission.UserInviteView)
  list(@CurrentPrincipal() p: Principal): Promise<SsoAccessRequest[]> { return this.sso.listRequests(p); }

  @ApiBearerAuth() @ApiOkResponse({ type: SsoAccessRequestResponse })
  @Post('access_requests/:id/approve') @HttpCode(200) @Permissions(Permission.UserInviteEdit)
  approve(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<SsoAccessRequest> { return this.sso.approve(p, id); }

  @ApiBearerAuth() @ApiOkResponse({ type: SsoAccessRequestResponse })
  @Post('access_requests/:id/reject') @HttpCode(200) @Permissions(Permission.UserInviteEdit)
  reject(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<SsoAccessRequest> { return this.sso.reject(p, id); }
}
