import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiQuery, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Permission, StreamType } from '@switchboard/contracts';
import { ApiListResponse, Permissions, type ListResult } from '@switchboard/platform';
import { CreateStreamDto, DemoSendDto, InboxMappingDto, PreviewTelegramDto, PreviewWhatsAppDto, ResetTokenDto, UpdateStreamDto } from '../dtos/stream.dto';
import { ConsoleToolsService, type DemoAnswer } from '../services/console-tools.service';
import { StatsService, type MessageStatusDto } from '../services/stats.service';
import { StreamService, streamIdFrom, type DropdownItem, type StreamDto } from '../services/stream.service';
import { DemoResponse, MessageStatusResponse, DropdownItemResponse, StreamResponse, StreamsInboxMappingResponse, StreamsPreviewTelegramResponse, StreamsPreviewWhatsAppResponse, StreamsResetTokenResponse, StreamsSetInboxMappingResponse, StreamsTokenResponse, WhatsAppPhoneNumberResponse } from '../dtos/responses.dto';
import { StreamWebhooksResponse, WHATSAPP_LIST_SCHEMA } from '../dtos/stream-api.dto';

const P = Permission;

@ApiTags('streams')
@ApiBearerAuth()
@Controller('streams')
export class StreamsController {
  constructor(
    private readonly streams: StreamService,
    private readonly stats: StatsService,
    private readonly tools: ConsoleToolsService,
  ) {}

  @ApiQuery({ name: 'name', type: String, required: false, description: 'name contains', example: 'Orders' })
  @ApiQuery({ name: 'streamType', type: Number, required: false, description: '1 marketing, 2 transactional, 3 OTP, 4 two-way, 5 WhatsApp, 7 Telegram bot, 8 Telegram private', example: 2 })
  @ApiQuery({ name: 'status', type: Number, required: false, description: '0 ready, 1 sending, 2 draft, -1 disabled, -10 restricted', example: 0 })
  @ApiListResponse(StreamResponse)
  @Get() @Permissions(P.StreamView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<StreamDto>> { return this.streams.list(q); }

  @ApiListResponse(DropdownItemResponse)
  @Get('dropdown') @Permissions(P.StreamView)
  dropdown(): Promise<ListResult<DropdownItem>> { return this.streams.dropdown(); }

  @ApiListResponse(DropdownItemResponse)
  @Get('dropdown/inbox') @Permissions(P.InboxView)
  dropdownInbox(): Promise<ListResult<DropdownItem>> { return this.streams.dropdown([StreamType.TwoWay, StreamType.WhatsApp]); }

  // GET /streams/statistics and POST /streams/subscribe are answered by the stats service from its rollups
  // (docs/decisions/0028-statistics.md, "Streams statistics").

  @ApiExtraModels(MessageStatusResponse)
  @ApiQuery({ type: String, name: 'message_uuid', required: false, description: 'one message (the message_uuid POST /api/streams/messages answered); without it, a page of messages', example: '0193a8f2-6c1e-7d4b-9f3a-2b5c8d1e4f60' })
  @ApiQuery({ type: Number, name: 'streamId', required: false, description: 'only this stream\'s messages (list form)', example: 7 })
  @ApiOkResponse({
    description: 'with message_uuid: that message; otherwise `{ items, total }` (page, itemsPerPage up to 500, order[createdAt])',
    schema: {
      oneOf: [
        { $ref: getSchemaPath(MessageStatusResponse) },
        { type: 'object', required: ['items', 'total'], properties: { items: { type: 'array', items: { $ref: getSchemaPath(MessageStatusResponse) } }, total: { type: 'integer', example: 1 } } },
      ],
    },
  })
  @Get('message_status') @Permissions(P.StreamView)
  messageStatus(@Query() q: Record<string, unknown>): Promise<MessageStatusDto | ListResult<MessageStatusDto>> { return this.stats.messageStatus(q); }

  @ApiOkResponse({ type: StreamsTokenResponse })
  @Get('token/:id') @Permissions(P.StreamToken)
  token(@Param('id') id: string) { return this.streams.token(id); }

  @ApiOkResponse({ type: StreamsResetTokenResponse })
  @Post('reset_token') @Permissions(P.StreamResetToken) @HttpCode(200)
  resetToken(@Body() dto: ResetTokenDto) { return this.streams.resetToken(streamIdFrom(dto.id, 'id')); }

  @ApiOkResponse({ type: DemoResponse })
  @Post('demo') @Permissions(P.StreamTester) @HttpCode(200)
  demo(@Body() dto: DemoSendDto): Promise<DemoAnswer> { return this.tools.demo(dto); }


  @ApiOkResponse({ type: StreamWebhooksResponse })
  @Get('webhooks/:id') @Permissions(P.StreamView)
  webhooks(@Param('id') id: string) { return this.tools.webhooks(id); }

  @ApiOkResponse({ type: StreamsPreviewWhatsAppResponse })
  @Post('preview-whatsapp-token') @Permissions(P.StreamAddEdit) @HttpCode(200)
  previewWhatsApp(@Body() dto: PreviewWhatsAppDto) { return this.tools.previewWhatsApp(dto.auth_token, dto.business_id); }

  @ApiOkResponse({ type: StreamsPreviewTelegramResponse })
  @Post('preview-telegram-token') @Permissions(P.StreamAddEdit) @HttpCode(200)
  previewTelegram(@Body() dto: PreviewTelegramDto) { return this.tools.previewTelegram(dto.auth_token); }

  @ApiOkResponse({ type: [WhatsAppPhoneNumberResponse] })
  @Get('external-senders/:id') @Permissions(P.StreamView)
  externalSenders(@Param('id') id: string) { return this.tools.externalSenders(id); }

  @ApiOkResponse({ schema: WHATSAPP_LIST_SCHEMA, description: 'the WhatsApp templates of the stream\'s business account; empty for other streams' })
  @Get('external-templates/:id') @Permissions(P.StreamView)
  externalTemplates(@Param('id') id: string, @Query() q: Record<string, unknown>) { return this.tools.externalTemplates(id, q); }

  @ApiListResponse(StreamsInboxMappingResponse)
  @Get('inbox/assign_permissions_mapping') @Permissions(P.InboxAdmin)
  inboxMapping() { return this.streams.inboxMapping(); }

  @ApiOkResponse({ type: StreamsSetInboxMappingResponse })
  @Post('inbox/assign_permissions_mapping') @Permissions(P.InboxAdmin) @HttpCode(200)
  setInboxMapping(@Body() dto: InboxMappingDto) { return this.streams.setInboxMapping(dto.streamId, dto.roleIds); }

  @ApiOkResponse({ type: StreamResponse })
  @Get(':id') @Permissions(P.StreamView)
  get(@Param('id') id: string): Promise<StreamDto> { return this.streams.get(id); }

  @ApiCreatedResponse({ type: StreamResponse })
  @Post() @Permissions(P.StreamAddEdit)
  create(@Body() dto: CreateStreamDto): Promise<StreamDto> { return this.streams.create(dto); }

  @ApiOkResponse({ type: StreamResponse })
  @Put(':id') @Permissions(P.StreamAddEdit)
  update(@Param('id') id: string, @Body() dto: UpdateStreamDto): Promise<StreamDto> { return this.streams.update(id, dto); }

  @Delete(':id') @Permissions(P.StreamRemove) @HttpCode(204)
  remove(@Param('id') id: string): Promise<void> { return this.streams.remove(id); }
}
