import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CampaignAction, Permission, type CampaignDto } from '@switchboard/contracts';
import { ApiErrors, ApiListResponse, Permissions, SuperAdmin, type ListResult } from '@switchboard/platform';
import { CampaignIdDto, CampaignInputDto, RatiosDto, RejectDto, StreamEventLinkDto } from '../dtos/campaign.dto';
import { CampaignAnalyticsResponse, CampaignResponse, ReviewedCampaignResponse } from '../dtos/responses.dto';
import { CampaignService } from '../services/campaign.service';

const P = Permission;
const NOT_ALLOWED = { status: 409, code: 'CAMPAIGN_ACTION_NOT_ALLOWED', message: 'a campaign that is draft (8) cannot pause' };

@ApiTags('campaigns')
@ApiBearerAuth()
@Controller('campaigns')
export class CampaignsController {
  constructor(private readonly campaigns: CampaignService) {}

  @ApiQuery({ name: 'tab', type: String, required: false, description: 'all, active, pending, rejected or finished (spec 4)', example: 'active' })
  @ApiQuery({ name: 'status', type: String, required: false, description: 'status numbers, comma-separated', example: '1,3' })
  @ApiQuery({ name: 'name', type: String, required: false, description: 'name contains', example: 'friday' })
  @ApiQuery({ name: 'type', type: Number, required: false, description: 'campaign type 0..4', example: 0 })
  @ApiQuery({ name: 'tag', type: Number, required: false, description: 'campaigns with this tag', example: 2 })
  @ApiQuery({ name: 'contactList', type: Number, required: false, description: 'campaigns sending to this list or segment (the list side panel)', example: 3 })
  @ApiQuery({ name: 'pinned', type: String, required: false, description: 'campaign ids listed first (the PINNED_CAMPAIGN preference)', example: '5,9' })
  @ApiListResponse(CampaignResponse)
  @Get() @Permissions(P.CampaignView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<CampaignDto>> { return this.campaigns.list(q); }

  @ApiListResponse(CampaignResponse, { description: 'the 4 most recently started campaigns (spec 9)' })
  @Get('dashboard') @Permissions(P.CampaignView)
  dashboard(): Promise<ListResult<CampaignDto>> { return this.campaigns.dashboard(); }

  @ApiQuery({ name: 'pinned', type: String, required: false, description: 'campaign ids listed first', example: '5,9' })
  @ApiQuery({ name: 'status', type: String, required: false, description: 'status numbers (default: the active tab)', example: '1,2,6' })
  @ApiListResponse(CampaignResponse, { description: 'live list: 10 a page, pinned first; updates arrive on /realtime?topic=campaigns' })
  @Get('realtime') @Permissions(P.CampaignView)
  realtime(@Query() q: Record<string, unknown>): Promise<ListResult<CampaignDto>> { return this.campaigns.realtime(q); }

  @ApiListResponse(ReviewedCampaignResponse, { description: 'super admin: suspended campaigns of every account, waiting for the spam review' })
  @Get('review') @SuperAdmin()
  review(@Query() q: Record<string, unknown>) { return this.campaigns.reviewList(q); }

  @ApiOkResponse({ type: ReviewedCampaignResponse, description: 'the campaign proceeds: scheduled when its date is ahead, else started' })
  @ApiErrors(NOT_ALLOWED)
  @Post('review/:id/approve') @SuperAdmin() @HttpCode(200)
  approve(@Param('id') id: string) { return this.campaigns.review(id, 'approve', {}); }

  @ApiOkResponse({ type: ReviewedCampaignResponse, description: 'rejected (11) with the reason as declinedReason' })
  @ApiErrors(NOT_ALLOWED)
  @Post('review/:id/reject') @SuperAdmin() @HttpCode(200)
  reject(@Param('id') id: string, @Body() dto: RejectDto) { return this.campaigns.review(id, 'reject', dto as Record<string, unknown>); }

  @ApiCreatedResponse({ type: CampaignResponse, description: 'a new draft named "copy X" with the same settings, variants, senders, tags and variables' })
  @ApiErrors(NOT_ALLOWED)
  @Post('duplicate') @Permissions(P.CampaignAddEdit)
  duplicate(@Body() dto: CampaignIdDto): Promise<CampaignDto> { return this.campaigns.duplicate(dto as Record<string, unknown>); }

  @ApiOkResponse({ type: CampaignResponse })
  @Get(':id') @Permissions(P.CampaignView)
  get(@Param('id') id: string): Promise<CampaignDto> { return this.campaigns.get(id); }

  @ApiOkResponse({ type: CampaignAnalyticsResponse, description: 'the counters, per variant and per sender (not for scheduled or draft campaigns)' })
  @ApiErrors(NOT_ALLOWED)
  @Get(':id/analytics') @Permissions(P.CampaignView)
  analytics(@Param('id') id: string) { return this.campaigns.analytics(id); }

  @ApiCreatedResponse({ type: CampaignResponse, description: 'a draft (8)' })
  @Post() @Permissions(P.CampaignAddEdit)
  create(@Body() dto: CampaignInputDto): Promise<CampaignDto> { return this.campaigns.create(dto as Record<string, unknown>); }

  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(NOT_ALLOWED)
  @Put(':id') @Permissions(P.CampaignAddEdit)
  update(@Param('id') id: string, @Body() dto: CampaignInputDto): Promise<CampaignDto> { return this.campaigns.update(id, dto as Record<string, unknown>); }

  @ApiErrors(NOT_ALLOWED)
  @Delete(':id') @Permissions(P.CampaignRemove) @HttpCode(204)
  remove(@Param('id') id: string): Promise<void> { return this.campaigns.remove(id); }

  @ApiOkResponse({ type: CampaignResponse, description: 'started (1), scheduled (0) with a future date, or suspended (9) for the spam review' })
  @ApiErrors(NOT_ALLOWED)
  @Post(':id/start') @Permissions(P.CampaignAddEdit) @HttpCode(200)
  start(@Param('id') id: string): Promise<CampaignDto> { return this.campaigns.start(id); }

  @ApiOkResponse({ type: CampaignResponse, description: 'paused (3)' })
  @ApiErrors(NOT_ALLOWED)
  @Post(':id/pause') @Permissions(P.CampaignAddEdit) @HttpCode(200)
  pause(@Param('id') id: string): Promise<CampaignDto> { return this.campaigns.act(id, CampaignAction.Pause); }

  @ApiOkResponse({ type: CampaignResponse, description: 'started (1) again' })
  @ApiErrors(NOT_ALLOWED)
  @Post(':id/play') @Permissions(P.CampaignAddEdit) @HttpCode(200)
  play(@Param('id') id: string): Promise<CampaignDto> { return this.campaigns.act(id, CampaignAction.Play); }

  @ApiOkResponse({ type: CampaignResponse, description: 'aborted (4) for good' })
  @ApiErrors(NOT_ALLOWED)
  @Post(':id/abort') @Permissions(P.CampaignAddEdit) @HttpCode(200)
  abort(@Param('id') id: string): Promise<CampaignDto> { return this.campaigns.act(id, CampaignAction.Abort); }

  @ApiOkResponse({ type: CampaignResponse, description: 'new ratios for the recipients not yet composed' })
  @ApiErrors(NOT_ALLOWED)
  @Put(':id/ratios') @Permissions(P.CampaignAddEdit)
  ratios(@Param('id') id: string, @Body() dto: RatiosDto): Promise<CampaignDto> { return this.campaigns.ratios(id, dto as Record<string, unknown>); }
}

@ApiTags('campaigns')
@ApiBearerAuth()
@Controller('campaign')
export class CampaignStreamEventsController {
  constructor(private readonly campaigns: CampaignService) {}

  @ApiOkResponse({ type: CampaignResponse, description: 'the campaign with the WhatsApp template as its one variant (ratio 100, #ff9600)' })
  @ApiErrors(NOT_ALLOWED)
  @Post('stream_events') @Permissions(P.CampaignAddEdit) @HttpCode(200)
  link(@Body() dto: StreamEventLinkDto): Promise<CampaignDto> { return this.campaigns.streamEvent(dto as Record<string, unknown>); }
}
