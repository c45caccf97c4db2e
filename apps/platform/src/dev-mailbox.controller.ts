import { Controller, Get, Headers, Inject, Optional, Query } from '@nestjs/common';
import { ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ErrorCode } from '@switchboard/contracts';
import { ApiErrors, AppError, DevMailbox, Mailer, Public, type StoredMail } from '@switchboard/platform';
import { tokenMatches } from './exposure';
import { StoredMailResponse } from './responses.dto';

/** The mailbox token (null when the server listens on loopback only, where the mailbox is open). */
export const MAILBOX_TOKEN = Symbol('MAILBOX_TOKEN');

/**
 * Embedded mode only: the mail a real deployment would send over SMTP, newest first. Not mounted in production.
 * It holds sign-in PINs and password-reset links, so when the server is reachable from the network it answers only
 * with the token printed at start (`?token=` or the `X-Mailbox-Token` header).
 */
@ApiTags('dev')
@Controller('dev')
export class DevMailboxController {
  constructor(
    @Inject(Mailer) private readonly mailer: Mailer,
    @Optional() @Inject(MAILBOX_TOKEN) private readonly token: string | null = null,
  ) {}

  @ApiOkResponse({ type: [StoredMailResponse] })
  @ApiErrors({ status: 401, code: '0x11', message: 'the dev mailbox needs the token printed at start (?token= or X-Mailbox-Token)' }, { status: 401, code: '0x12', message: 'wrong dev mailbox token' })
  @ApiQuery({ type: Number, name: 'limit', required: false, description: 'at most this many mails (1 to 200, default 50)', example: 10 })
  @ApiQuery({ type: String, name: 'token', required: false, description: 'the token printed at start, when the server listens on a network address (or the X-Mailbox-Token header)', example: 'mQ3k9Vx0bq2ZT1c8lW5yRpE4' })
  @Get('mailbox')
  @Public()
  list(@Query('limit') limit?: string, @Query('token') queryToken?: string, @Headers('x-mailbox-token') headerToken?: string): StoredMail[] {
    if (this.token) {
      const presented = headerToken ?? queryToken;
      if (!presented) throw AppError.unauthorized('the dev mailbox needs the token printed at start (?token= or X-Mailbox-Token)', ErrorCode.MissingToken);
      if (!tokenMatches(presented, this.token)) throw AppError.unauthorized('wrong dev mailbox token', ErrorCode.InvalidToken);
    }
    const n = Math.min(Math.max(Number(limit) || 50, 1), 200);
    return this.mailer instanceof DevMailbox ? this.mailer.list(n) : [];
  }
}
