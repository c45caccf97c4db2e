import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { DevMailbox, Mailer, Public, type StoredMail } from '@switchboard/platform';
import { StoredMailResponse } from './responses.dto';

/** Embedded mode only: the mail a real deployment would send over SMTP, newest first. Not mounted in production. */
@ApiTags('dev')
@Controller('dev')
export class DevMailboxController {
  constructor(@Inject(Mailer) private readonly mailer: Mailer) {}

  @ApiOkResponse({ type: [StoredMailResponse] })
  @ApiQuery({ type: Number, name: 'limit', required: false, description: 'at most this many mails (1 to 200, default 50)', example: 10 })
  @Get('mailbox')
  @Public()
  list(@Query('limit') limit?: string): StoredMail[] {
    const n = Math.min(Math.max(Number(limit) || 50, 1), 200);
    return this.mailer instanceof DevMailbox ? this.mailer.list(n) : [];
  }
}
