import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Permission } from '@switchboard/contracts';
import { ApiErrors, Permissions } from '@switchboard/platform';
import { MediaInfoSchema } from '../http/schemas';
import { MediaService } from './media.service';

@ApiTags('inbox media')
@ApiBearerAuth()
@Controller()
export class MediaController {
  constructor(private readonly media: MediaService) {}

  @Post('upload/:type/:stream') @Permissions(Permission.InboxView)
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', properties: { file: { type: 'string', format: 'binary', description: 'the file; its type is read from its bytes', example: 'photo.jpg' } }, required: ['file'] } })
  @ApiOkResponse({ schema: MediaInfoSchema })
  @ApiErrors({ status: 413, code: '0x1', message: 'larger than the limit of the kind' }, { status: 400, code: '0x17', message: 'invalid media: the bytes are not a type the kind takes' })
  upload(@Req() req: Request, @Param('type') type: string, @Param('stream') stream: string) { return this.media.upload(req, type, stream); }

  @Get('media_info/:id') @Permissions(Permission.InboxView) @ApiOkResponse({ schema: MediaInfoSchema })
  info(@Param('id') id: string, @Req() req: Request) { return this.media.info(id, req.headers.authorization); }

  @Get('stream_media/:id') @Permissions(Permission.InboxView)
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'the bytes, with the type read at upload (inbound WhatsApp and Telegram media: fetched from the provider at the first read)', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary', example: '<bytes>' } } } })
  async bytes(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const { info, body } = await this.media.bytes(id, req.headers.authorization);
    // never rendered by the browser as a page of ours: the sniffed type, no sniffing by the browser, a download
    res.setHeader('Content-Type', info.mime);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.setHeader('Content-Disposition', `${info.kind === 'image' || info.kind === 'sticker' || info.kind === 'video' || info.kind === 'audio' ? 'inline' : 'attachment'}; filename="${encodeURIComponent(info.file_name ?? info.id)}"`);
    res.setHeader('Cache-Control', 'private, max-age=86400');
    res.end(body);
  }
}
