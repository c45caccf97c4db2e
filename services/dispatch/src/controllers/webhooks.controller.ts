import { Controller, Get, Header, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '@switchboard/platform';
import { WebhookService } from '../services/webhooks.service';

/** Provider webhooks: public routes that check the provider's signature or secret token themselves. */
@ApiTags('dispatch webhooks')
@Controller('dispatch/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhookService) {}

  // `key`: a vendor id, or a stream uid (the URL the streams console shows, GET /streams/webhooks/:id).
  @Get('whatsapp/:key') @Public() @Header('content-type', 'text/plain')
  verifyWhatsApp(@Param('key') key: string, @Query() q: Record<string, unknown>): Promise<string> { return this.webhooks.verifyWhatsApp(key, q); }

  @Post('whatsapp/:key') @Public() @HttpCode(200)
  async whatsApp(@Param('key') key: string, @Req() req: Request): Promise<{ ok: true }> { await this.webhooks.whatsApp(key, req); return { ok: true }; }

  @Post('telegram/:streamUid') @Public() @HttpCode(200)
  async telegram(@Param('streamUid') streamUid: string, @Req() req: Request): Promise<{ ok: true }> { await this.webhooks.telegram(streamUid, req); return { ok: true }; }
}
