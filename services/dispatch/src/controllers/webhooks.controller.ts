import { Controller, Get, Header, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '@switchboard/platform';
import { WebhookService } from '../services/webhooks.service';
import { WebhooksTelegramResponse, WebhooksWhatsAppResponse } from '../dtos/responses.dto';

/** Provider webhooks: public routes that check the provider's signature or secret token themselves. */
@ApiTags('dispatch webhooks')
@Controller('dispatch/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhookService) {}

  // `key`: a vendor id, or a stream uid (the URL the streams console shows, GET /streams/webhooks/:id).
  @ApiQuery({ type: String, name: 'hub.mode', example: 'subscribe' })
  @ApiQuery({ type: String, name: 'hub.verify_token', example: '5f2c9a', description: 'the verify token GET /api/streams/webhooks/{id} shows' })
  @ApiQuery({ type: String, name: 'hub.challenge', example: '1158201444' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'the subscription handshake: hub.challenge echoed', schema: { type: 'string', example: '1158201444' } })
  @Get('whatsapp/:key') @Public() @Header('content-type', 'text/plain')
  verifyWhatsApp(@Param('key') key: string, @Query() q: Record<string, unknown>): Promise<string> { return this.webhooks.verifyWhatsApp(key, q); }

  @ApiOkResponse({ type: WebhooksWhatsAppResponse })
  @ApiHeader({ name: 'X-Hub-Signature-256', required: true, description: 'sha256=HMAC of the raw body with the app secret', example: 'sha256=3f1c…' })
  @ApiBody({ description: 'a WhatsApp Cloud API webhook notification, unchanged', schema: { type: 'object', additionalProperties: true, example: { object: 'whatsapp_business_account', entry: [{ id: '1234567890', changes: [{ field: 'messages', value: { statuses: [{ id: 'wamid.HBg…', status: 'delivered' }] } }] }] } } })
  @Post('whatsapp/:key') @Public() @HttpCode(200)
  async whatsApp(@Param('key') key: string, @Req() req: Request): Promise<{ ok: true }> { await this.webhooks.whatsApp(key, req); return { ok: true }; }

  @ApiOkResponse({ type: WebhooksTelegramResponse })
  @ApiHeader({ name: 'X-Telegram-Bot-Api-Secret-Token', required: true, description: 'the secret set with setWebhook', example: 'c2VjcmV0' })
  @ApiBody({ description: 'a Telegram Bot API update, unchanged', schema: { type: 'object', additionalProperties: true, example: { update_id: 10000, message: { message_id: 1, chat: { id: 123456789, type: 'private' }, text: 'STOP' } } } })
  @Post('telegram/:streamUid') @Public() @HttpCode(200)
  async telegram(@Param('streamUid') streamUid: string, @Req() req: Request): Promise<{ ok: true }> { await this.webhooks.telegram(streamUid, req); return { ok: true }; }
}
