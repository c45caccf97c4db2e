import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { AppError, Permissions } from '@switchboard/platform';
import { MessageResponseDto } from '../dtos/sender.dto';
import { ConsoleToolsService, type MessageResponseAnswer } from '../services/console-tools.service';
import { MessageResponse2Response, StreamToolsDiagnosticsResponse } from '../dtos/responses.dto';
import { CodeSnippetResponse, WHATSAPP_LIST_SCHEMA, WHATSAPP_OBJECT_SCHEMA } from '../dtos/stream-api.dto';

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

  @ApiQuery({ type: Number, name: 'streamId', description: 'the stream id', example: 7 })
  @ApiOkResponse({ type: CodeSnippetResponse })
  @Get('code_snippet') @Permissions(P.StreamToken)
  codeSnippet(@Query('streamId') streamId: string) { return this.tools.codeSnippets(streamId); }

  @ApiOkResponse({ type: StreamToolsDiagnosticsResponse })
  @ApiQuery({ type: Number, name: 'streamId', description: 'the stream id', example: 7 })
  @Get('diagnostics') @Permissions(P.StreamView)
  diagnostics(@Query('streamId') streamId: string) { return this.tools.diagnostics(streamId); }
}

/** WhatsApp Cloud API templates and flows of a stream's business account. */
@ApiTags('streams')
@ApiBearerAuth()
@Controller('tech_provider/whatsapp')
export class TechProviderController {
  constructor(private readonly tools: ConsoleToolsService) {}

  @ApiOkResponse({ schema: WHATSAPP_LIST_SCHEMA, description: 'filters name, status, language, category, limit, after, before are passed to the WhatsApp Cloud API' })
  @Get('templates/:stream') @Permissions(P.StreamView)
  templates(@Param('stream') stream: string, @Query() q: Record<string, unknown>) { return this.tools.templates(stream, q); }

  @ApiBody({
    schema: {
      type: 'object',
      required: ['name', 'language', 'category', 'components'],
      properties: {
        name: { type: 'string', pattern: '^[a-z0-9_]{1,512}$', example: 'order_update' },
        language: { type: 'string', example: 'en' },
        category: { type: 'string', enum: ['MARKETING', 'UTILITY', 'AUTHENTICATION'], example: 'UTILITY' },
        components: { type: 'array', items: WHATSAPP_OBJECT_SCHEMA, example: [{ type: 'BODY', text: 'Your order {{1}} has shipped' }] },
      },
    },
  })
  @ApiCreatedResponse({ schema: WHATSAPP_OBJECT_SCHEMA, description: "the WhatsApp Cloud API's answer" })
  @Post('templates/:stream') @Permissions(P.StreamAddEdit)
  createTemplate(@Param('stream') stream: string, @Body() body: unknown) { return this.tools.createTemplate(stream, objectBody(body)); }

  @ApiQuery({ type: String, name: 'name', description: 'the template to delete', example: 'order_update' })
  @ApiOkResponse({ schema: { ...WHATSAPP_OBJECT_SCHEMA, example: { success: true } }, description: "the WhatsApp Cloud API's answer" })
  @Delete('templates/:stream') @Permissions(P.StreamRemove) @HttpCode(200)
  deleteTemplate(@Param('stream') stream: string, @Query('name') name: string) { return this.tools.deleteTemplate(stream, name); }

  @ApiOkResponse({ schema: WHATSAPP_LIST_SCHEMA, description: 'the WhatsApp flows of the business account' })
  @Get('flows/:stream') @Permissions(P.StreamView)
  flows(@Param('stream') stream: string) { return this.tools.flows(stream); }
}

/** `POST /message_responses/send`: a reply through a two-way stream, answered with the message send codes. */
@ApiTags('streams')
@ApiBearerAuth()
@Controller('message_responses')
export class MessageResponsesController {
  constructor(private readonly tools: ConsoleToolsService) {}

  @ApiOkResponse({ type: MessageResponse2Response })
  @Post('send') @Permissions(P.MessageIncomingResponse) @HttpCode(200)
  send(@Body() dto: MessageResponseDto): Promise<MessageResponseAnswer> { return this.tools.reply(dto); }
}
