import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Authenticated } from '@switchboard/platform';
import { RealtimeStreamService } from './realtime/realtime-stream.service';

/**
 * `GET /realtime?topic=campaigns&topic=streams[&lastEventId=...]`: server-sent events (outside the /api prefix).
 * The token may come as `access_token` in the query string, since EventSource cannot set headers.
 */
@Controller()
export class RealtimeController {
  constructor(private readonly realtime: RealtimeStreamService) {}

  @Get('realtime')
  @Authenticated()
  async stream(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.realtime.stream(req, res, this.realtime.parse(req));
  }
}
