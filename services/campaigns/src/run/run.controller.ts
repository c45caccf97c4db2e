import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { AppError, Permissions } from '@switchboard/platform';
import { EstimateService, type DemoAnswer, type EstimatedCost } from './estimate.service';
import { DemoMessageDto, DemoMessageResponse, EstimatedCostResponse, UnreachableTimezonesResponse } from './run.dto';

const campaignOf = (q: Record<string, unknown>): string => {
  const id = q.campaign ?? q.campaignId ?? q.id;
  if (typeof id !== 'string' || !/^\d{1,18}$/.test(id)) throw AppError.validation([{ propertyPath: 'campaign', message: 'campaign is the id of one of the account’s campaigns', code: 'required' }]);
  return id;
};

/**
 * What a campaign shows before it starts, and its demo message (docs/decisions/0032-campaign-runner.md). Registered
 * before the campaigns controller, whose `campaigns/:id` would otherwise take these paths.
 */
@ApiTags('campaigns')
@ApiBearerAuth()
@Controller('campaigns')
export class CampaignRunController {
  constructor(private readonly estimates: EstimateService) {}

  @ApiQuery({ name: 'campaign', type: Number, required: true, example: 12 })
  @ApiQuery({ name: 'refresh', type: Boolean, required: false, description: 'count the audience again', example: false })
  @ApiOkResponse({ type: EstimatedCostResponse, description: 'recipients and cost per country with the account’s prices; `pending` until contacts has counted the audience (then a `campaign.estimate_ready` live update)' })
  @Get('get_estimated_cost') @Permissions(Permission.CampaignView)
  cost(@Query() q: Record<string, unknown>): Promise<EstimatedCost> {
    return this.estimates.estimatedCost(campaignOf(q), q.refresh === 'true' || q.refresh === '1');
  }

  @ApiQuery({ name: 'campaign', type: Number, required: true, example: 12 })
  @ApiQuery({ name: 'refresh', type: Boolean, required: false, description: 'count the audience again', example: false })
  @ApiOkResponse({ type: UnreachableTimezonesResponse, description: 'the audience’s time zones in which the sending hours never open before the end date, with their recipients' })
  @Get('get_unreachable_timezones') @Permissions(Permission.CampaignView)
  unreachable(@Query() q: Record<string, unknown>) {
    return this.estimates.unreachable(campaignOf(q), q.refresh === 'true' || q.refresh === '1');
  }

  @ApiOkResponse({ type: DemoMessageResponse, description: 'spec 306: success (with the message uuid), campaign_not_selected, campaign_not_exist, phone_not_entered, phone_invalid, message_empty, sender_not_exist' })
  @Post('send_demo_message') @Permissions(Permission.CampaignTester) @HttpCode(200)
  demo(@Body() body: DemoMessageDto): Promise<DemoAnswer> {
    return this.estimates.sendDemo((body ?? {}) as Record<string, unknown>);
  }
}
