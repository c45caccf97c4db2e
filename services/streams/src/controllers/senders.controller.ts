import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { ApiListResponse, Permissions, SuperAdmin, type ListResult } from '@switchboard/platform';
import { ApproveSenderDto, CreateSenderDto, KeywordDto, StreamEventDto, UpdateSenderDto } from '../dtos/sender.dto';
import { KeywordService, SenderService, type SenderDto, type SuperAdminSenderDto } from '../services/sender.service';
import { StreamEventService, type StreamEventView } from '../services/stream-event.service';
import { MaliciousKeywordsCreateResponse, MaliciousKeywordsGetResponse, MaliciousKeywordsResponse, MaliciousKeywordsUpdateResponse, PickResponse, SenderResponse, StreamEventResponse, SuperAdminSenderResponse } from '../dtos/responses.dto';

const P = Permission;

@ApiTags('senders')
@ApiBearerAuth()
@Controller('senders')
export class SendersController {
  constructor(private readonly senders: SenderService) {}

  @ApiQuery({ name: 'approved', type: Number, required: false, description: '0 pending, 1 approved, 2 declined', example: 1 })
  @ApiQuery({ name: 'search', type: String, required: false, description: 'name or sender ID contains', example: 'ACME' })
  @ApiQuery({ name: 'type', type: String, required: false, description: 'inbound-outbound, inbound-only or outbound-only', example: 'outbound-only' })
  @ApiListResponse(SenderResponse)
  @Get() @Permissions(P.SenderView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<SenderDto>> { return this.senders.list(q); }

  @ApiListResponse(PickResponse)
  @Get('dropdown') @Permissions(P.SenderView)
  dropdown(@Query() q: Record<string, unknown>) { return this.senders.dropdown(q); }

  @ApiQuery({ name: 'approved', type: Number, required: false, description: '0 pending, 1 approved, 2 declined', example: 0 })
  @ApiListResponse(SuperAdminSenderResponse)
  @Get('superadmin') @SuperAdmin()
  listAll(@Query() q: Record<string, unknown>): Promise<ListResult<SuperAdminSenderDto>> { return this.senders.listAll(q); }

  @ApiOkResponse({ type: SuperAdminSenderResponse })
  @Put('superadmin/:id') @SuperAdmin()
  approve(@Param('id') id: string, @Body() dto: ApproveSenderDto): Promise<SuperAdminSenderDto> { return this.senders.approve(id, dto); }

  @ApiOkResponse({ type: SenderResponse })
  @Get(':id') @Permissions(P.SenderView)
  get(@Param('id') id: string): Promise<SenderDto> { return this.senders.get(id); }

  @ApiCreatedResponse({ type: SenderResponse })
  @Post() @Permissions(P.SenderAddEdit)
  create(@Body() dto: CreateSenderDto): Promise<SenderDto> { return this.senders.create(dto); }

  @ApiOkResponse({ type: SenderResponse })
  @Put(':id') @Permissions(P.SenderAddEdit)
  update(@Param('id') id: string, @Body() dto: UpdateSenderDto): Promise<SenderDto> { return this.senders.update(id, dto); }

  @Delete(':id') @Permissions(P.SenderRemove) @HttpCode(204)
  remove(@Param('id') id: string): Promise<void> { return this.senders.remove(id); }
}

/** The global malicious keyword list: super administrators only (spec 6). */
@ApiTags('senders')
@ApiBearerAuth()
@Controller('malicious_keywords/global')
export class MaliciousKeywordsController {
  constructor(private readonly keywords: KeywordService) {}

  @ApiQuery({ name: 'search', type: String, required: false, description: 'word contains', example: 'casino' })
  @ApiListResponse(MaliciousKeywordsResponse)
  @Get() @SuperAdmin()
  list(@Query() q: Record<string, unknown>) { return this.keywords.list(q); }

  @ApiOkResponse({ type: MaliciousKeywordsGetResponse })
  @Get(':id') @SuperAdmin()
  get(@Param('id') id: string) { return this.keywords.get(id); }

  @ApiCreatedResponse({ type: MaliciousKeywordsCreateResponse })
  @Post() @SuperAdmin()
  create(@Body() dto: KeywordDto) { return this.keywords.create(dto); }

  @ApiOkResponse({ type: MaliciousKeywordsUpdateResponse })
  @Put(':id') @SuperAdmin()
  update(@Param('id') id: string, @Body() dto: KeywordDto) { return this.keywords.update(id, dto); }

  @Delete(':id') @SuperAdmin() @HttpCode(204)
  remove(@Param('id') id: string): Promise<void> { return this.keywords.remove(id); }
}

@ApiTags('streams')
@ApiBearerAuth()
@Controller('stream_events')
export class StreamEventsController {
  constructor(private readonly events: StreamEventService) {}

  @ApiQuery({ name: 'streamId', type: Number, required: false, description: "only this stream's events", example: 7 })
  @ApiListResponse(StreamEventResponse)
  @Get() @Permissions(P.StreamView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<StreamEventView>> { return this.events.list(q); }

  @ApiOkResponse({ type: StreamEventResponse })
  @Get(':id') @Permissions(P.StreamView)
  get(@Param('id') id: string): Promise<StreamEventView> { return this.events.get(id); }

  @ApiCreatedResponse({ type: StreamEventResponse })
  @Post() @Permissions(P.StreamAddEdit)
  create(@Body() dto: StreamEventDto): Promise<StreamEventView> { return this.events.create(dto); }

  @ApiOkResponse({ type: StreamEventResponse })
  @Put(':id') @Permissions(P.StreamAddEdit)
  update(@Param('id') id: string, @Body() dto: StreamEventDto): Promise<StreamEventView> { return this.events.update(id, dto); }

  @Delete(':id') @Permissions(P.StreamRemove) @HttpCode(204)
  remove(@Param('id') id: string): Promise<void> { return this.events.remove(id); }
}
