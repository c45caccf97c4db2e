import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission, type CampaignDomainStatisticsDto } from '@switchboard/contracts';
import { ApiListResponse, Permissions, type ListResult } from '@switchboard/platform';
import { CampaignDomainStatisticsResponse } from '../dtos/responses.dto';
import { DomainStatisticsService } from '../services/domain-statistics.service';

@ApiTags('campaigns')
@ApiBearerAuth()
@Controller('campaign_domain_statistics')
export class CampaignDomainStatisticsController {
  constructor(private readonly stats: DomainStatisticsService) {}

  @ApiQuery({ name: 'campaign', type: String, required: false, description: 'one campaign (id or IRI); none: every campaign of the account', example: '7' })
  @ApiListResponse(CampaignDomainStatisticsResponse, { description: 'usages, clicks and unique clicks per campaign and domain' })
  @Get() @Permissions(Permission.CampaignView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<CampaignDomainStatisticsDto>> { return this.stats.campaignDomains(q); }
}
