import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Permission } from '@switchboard/contracts';
import { ApiErrors, Permissions } from '@switchboard/platform';
import { InboundMediaService } from '../services/inbound-media.service';

/**
 * The media of an inbound WhatsApp or Telegram message, fetched from the provider with the stream's token (which
 * only dispatch holds). The inbox asks here with the agent's token and keeps the bytes (docs/decisions/0045).
 */
@ApiTags('dispatch inbound media')
@ApiBearerAuth()
@Controller('dispatch/inbound_media')
export class InboundMediaController {
  constructor(private readonly media: InboundMediaService) {}

  @Get(':uuid') @Permissions(Permission.InboxView)
  @ApiQuery({ name: 'max', required: false, type: Number, description: 'refuse media larger than this many bytes (413)', example: 5242880 })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({
    description: "the bytes as the provider handed them over; X-Media-Mime is the provider's claimed type, X-Media-File-Name a document's name",
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary', example: '<bytes>' } } },
  })
  @ApiErrors(
    { status: 404, code: 'NOT_FOUND', message: 'no such inbound message with media in the account, or the provider no longer has it' },
    { status: 413, code: '0x1', message: 'larger than max' },
    { status: 502, code: '0x0', message: 'the provider did not hand over the media in time' },
  )
  async get(@Param('uuid') uuid: string, @Query('max') max: unknown, @Res() res: Response): Promise<void> {
    const m = await this.media.fetch(uuid, max);
    res.setHeader('Content-Type', 'application/octet-stream');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.setHeader('Content-Disposition', 'attachment');
    res.setHeader('Cache-Control', 'no-store');
    if (m.providerMime) res.setHeader('X-Media-Mime', m.providerMime.replace(/[^\x20-\x7e]/g, ''));
    if (m.fileName) res.setHeader('X-Media-File-Name', encodeURIComponent(m.fileName));
    res.end(m.bytes);
  }
}
