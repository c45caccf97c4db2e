import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { AppError, Permissions } from '@switchboard/platform';
import { MessageResponseDto } from '../dtos/sender.dto';
import { ConsoleToolsService, type MessageResponseAnswer } from '../services/console-tools.service';

const P = Permission;

const objectBody = (b: unknown): Record<string, unknown> => {
  if (!b || typeof b !== 'object' || Array.isArray(b)) throw AppError.validation([{ propertyPath: '', message: 'the body must be a JSON object' }]);
  return b as Record<string, unknown>;
};

/** `GET /stream/code_snippet`, `GET /stream/diagnostics`. */
@ApiTags('streams')
@ApiBearerAuth()
@Controller('stream')
export class StreamToolsController {
  constructor(private readonly tools: ConsoleToolsService) {}

  @Get('code_snippet') @Permissions(P.StreamToken)
  codeSnippet(@Query('streamId') streamId: string) { return this.tools.codeSnippets(streamId); }

  @Get('diagnostics') @Permissions(P.StreamView)
  diagnostics(@Query('streamId') streamId: string) { return this.tools.diagnostics(streamId); }
}

/** WhatsApp Cloud API templates and flows of a stream's business account. */
@ApiTags('streams')
@ApiBearerAuth()
@Controller('tech_provider/whatsapp')
export class TechProviderController {
  constructor(private readonly tools: ConsoleToolsService) {}

  @Get('templates/:stream') @Permissions(P.StreamView)
  templates(@Param('stream') stream: string, @Query() q: Record<string, unknown>) { return this.tools.templates(stream, q); }

  @Post('templates/:stream') @Permissions(P.StreamAddEdit)
  createTemplate(@Param('stream') stream: string, @Body() body: unknown) { return this.tools.createTemplate(stream, objectBody(body)); }

  @Delete('templates/:stream') @Permissions(P.StreamRemove) @HttpCode(200)
  deleteTemplate(@Param('stream') stream: string, @Query('name') name: string) { return this.tools.deleteTemplate(stream, name); }

  @Get('flows/:stream') @Permissions(P.StreamView)
  flows(@Param('stream') stream: string) { return this.tools.flows(stream); }
}

/** `POST /message_responses/send`: a reply through a two-way stream, answered with the message send codes. */
@ApiTags('streams')
@ApiBearerAuth()
@Controller('message_responses')
export class MessageResponsesController {
  constructor(private readonly tools: ConsoleToolsService) {}

  @Post('send') @Permissions(P.MessageIncomingResponse) @HttpCode(200)
  send(@Body() dto: MessageResponseDto): Promise<MessageResponseAnswer> { return this.tools.reply(dto); }
}
