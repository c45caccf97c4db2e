import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Permission, StreamType } from '@switchboard/contracts';
import { Permissions, type ListResult } from '@switchboard/platform';
import { CreateStreamDto, DemoSendDto, InboxMappingDto, PreviewTelegramDto, PreviewWhatsAppDto, ResetTokenDto, SubscribeDto, UpdateStreamDto } from '../dtos/stream.dto';
import { ConsoleToolsService, type DemoAnswer } from '../services/console-tools.service';
import { StatsService, type MessageStatusDto, type StatisticsDto } from '../services/stats.service';
import { StreamService, streamIdFrom, type DropdownItem, type StreamDto } from '../services/stream.service';

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

  @Get() @Permissions(P.StreamView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<StreamDto>> { return this.streams.list(q); }

  @Get('dropdown') @Permissions(P.StreamView)
  dropdown(): Promise<ListResult<DropdownItem>> { return this.streams.dropdown(); }

  @Get('dropdown/inbox') @Permissions(P.InboxView)
  dropdownInbox(): Promise<ListResult<DropdownItem>> { return this.streams.dropdown([StreamType.TwoWay, StreamType.WhatsApp]); }

  @Get('statistics') @Permissions(P.StreamView)
  statistics(@Query() q: Record<string, unknown>): Promise<StatisticsDto> { return this.stats.statistics(q); }

  @Get('message_status') @Permissions(P.StreamView)
  messageStatus(@Query() q: Record<string, unknown>): Promise<MessageStatusDto | ListResult<MessageStatusDto>> { return this.stats.messageStatus(q); }

  @Get('token/:id') @Permissions(P.StreamToken)
  token(@Param('id') id: string) { return this.streams.token(id); }

  @Post('reset_token') @Permissions(P.StreamResetToken) @HttpCode(200)
  resetToken(@Body() dto: ResetTokenDto) { return this.streams.resetToken(streamIdFrom(dto.id, 'id')); }

  @Post('demo') @Permissions(P.StreamTester) @HttpCode(200)
  demo(@Body() dto: DemoSendDto): Promise<DemoAnswer> { return this.tools.demo(dto); }

  @Post('subscribe') @Permissions(P.StreamView) @HttpCode(200)
  subscribe(@Body() dto: SubscribeDto): Promise<StatisticsDto> { return this.stats.subscribe(dto); }

  @Get('webhooks/:id') @Permissions(P.StreamView)
  webhooks(@Param('id') id: string) { return this.tools.webhooks(id); }

  @Post('preview-whatsapp-token') @Permissions(P.StreamAddEdit) @HttpCode(200)
  previewWhatsApp(@Body() dto: PreviewWhatsAppDto) { return this.tools.previewWhatsApp(dto.auth_token, dto.business_id); }

  @Post('preview-telegram-token') @Permissions(P.StreamAddEdit) @HttpCode(200)
  previewTelegram(@Body() dto: PreviewTelegramDto) { return this.tools.previewTelegram(dto.auth_token); }

  @Get('external-senders/:id') @Permissions(P.StreamView)
  externalSenders(@Param('id') id: string) { return this.tools.externalSenders(id); }

  @Get('external-templates/:id') @Permissions(P.StreamView)
  externalTemplates(@Param('id') id: string, @Query() q: Record<string, unknown>) { return this.tools.externalTemplates(id, q); }

  @Get('inbox/assign_permissions_mapping') @Permissions(P.InboxAdmin)
  inboxMapping() { return this.streams.inboxMapping(); }

  @Post('inbox/assign_permissions_mapping') @Permissions(P.InboxAdmin) @HttpCode(200)
  setInboxMapping(@Body() dto: InboxMappingDto) { return this.streams.setInboxMapping(dto.streamId, dto.roleIds); }

  @Get(':id') @Permissions(P.StreamView)
  get(@Param('id') id: string): Promise<StreamDto> { return this.streams.get(id); }

  @Post() @Permissions(P.StreamAddEdit)
  create(@Body() dto: CreateStreamDto): Promise<StreamDto> { return this.streams.create(dto); }

  @Put(':id') @Permissions(P.StreamAddEdit)
  update(@Param('id') id: string, @Body() dto: UpdateStreamDto): Promise<StreamDto> { return this.streams.update(id, dto); }

  @Delete(':id') @Permissions(P.StreamRemove) @HttpCode(204)
  remove(@Param('id') id: string): Promise<void> { return this.streams.remove(id); }
}
