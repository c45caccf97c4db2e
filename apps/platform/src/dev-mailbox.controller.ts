import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DevMailbox, Mailer, Public, type StoredMail } from '@switchboard/platform';

/** Embedded mode only: the mail a real deployment would send over SMTP, newest first. Not mounted in production. */
@ApiTags('dev')
@Controller('dev')
export class DevMailboxController {
  constructor(@Inject(Mailer) private readonly mailer: Mailer) {}

  @Get('mailbox')
  @Public()
  list(@Query('limit') limit?: string): StoredMail[] {
    const n = Math.min(Math.max(Number(limit) || 50, 1), 200);
    return this.mailer instanceof DevMailbox ? this.mailer.list(n) : [];
  }
}
