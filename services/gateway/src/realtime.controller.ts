import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Authenticated, QueryToken } from '@switchboard/platform';
import { RealtimeStreamService } from './realtime/realtime-stream.service';

/**
 * `GET /realtime?topic=campaigns&topic=streams[&lastEventId=...]`: server-sent events (outside the /api prefix).
 * The token may come as `access_token` in the query string, since EventSource cannot set headers.
 */
@ApiTags('realtime')
@ApiBearerAuth()
@Controller()
export class RealtimeController {
  constructor(private readonly realtime: RealtimeStreamService) {}

  @ApiQuery({ name: 'topic', isArray: true, type: String, example: ['messages', 'streams'], description: 'repeat for each topic: the caller\'s account events under it' })
  @ApiQuery({ type: String, name: 'lastEventId', required: false, example: '1795624800707-13', description: 'resume after this event (or the Last-Event-ID header)' })
  @ApiQuery({ type: String, name: 'access_token', required: false, example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln', description: 'the access token, for EventSource which cannot set the Authorization header' })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'server-sent events, one JSON object per `data:` line, until the token expires', schema: { type: 'string', example: 'id: 1795624800707-13\nevent: messages\ndata: {"accountId":"1","topic":"messages","type":"status_changed","data":{"counts":{"delivered":1},"messageUuids":["eee380cc-9013-47f4-94e5-f26f3ee368b5"]},"id":"1795624800707-13","subject":"rt.1.messages","at":"2026-11-25T16:40:00.707Z"}\n\n' } })
  @Get('realtime')
  @Authenticated()
  @QueryToken()
  async stream(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.realtime.stream(req, res, this.realtime.parse(req));
  }
}
