import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import {
  Permission,
  type CampaignCtrDto,
  type CampaignDeliveryStatsDto,
  type CampaignDomainStatisticsDto,
  type CampaignDomainStatsDto,
  type CampaignStatsDashboardDto,
  type CampaignStatsRowDto,
  type CampaignVariantStatsDto,
} from '@switchboard/contracts';
import { Permissions, type ListResult } from '@switchboard/platform';
import { CampaignReportService } from '../services/campaign-report.service';

const int = (example: number) => ({ type: 'integer', example });
const str = (example: string, description?: string) => ({ type: 'string', example, ...(description ? { description } : {}) });
const MONEY = {
  type: 'array',
  nullable: true,
  description: 'per currency; null without COST_VIEW',
  items: { type: 'object', properties: { currency: str('EUR'), micros: str('62500000', 'micro-units, exact'), amount: str('62.50') } },
};
const FIGURES = {
  total: int(1000),
  accepted: int(0),
  sent: int(20),
  delivered: int(950),
  sent_failed: int(5),
  undelivered: int(20),
  no_routes: int(3),
  rejected: int(2),
  failed: int(30),
  pending: int(20),
  parts: int(1100),
  cost: MONEY,
  clicks: int(140),
  uniqueClicks: int(120),
  optedOut: int(4),
  ctr: { type: 'number', example: 12.63, description: 'unique clicks over delivered, percent' },
};
const RANGE = {
  slice: str('all'),
  start: str('2026-11-01T00:00:00.000Z', 'null for all'),
  end: str('2026-11-29T23:59:59.000Z', 'inclusive; null for all'),
  timeZone: str('Europe/Berlin'),
  account: str('7'),
  cached: { type: 'boolean', example: false },
};
const SERIES = { type: 'array', items: { type: 'object', properties: { bucket: str('2026-11-24'), total: int(180), delivered: int(170), failed: int(6), pending: int(4), clicks: int(20) } } };
const ROW = { type: 'object', properties: { campaignId: int(7), name: str('Black Friday'), status: int(11), firstAt: str('2026-11-24T09:00:00.000Z'), lastAt: str('2026-11-24T17:00:00.000Z'), ...FIGURES } };

const slice = () => [
  ApiQuery({ name: 'type', type: String, required: false, description: 'day, week, month, year (or 1..4), custom (start and end), all; none: the whole campaign', example: 'all' }),
  ApiQuery({ name: 'start', type: String, required: false, description: 'YYYY-MM-DD (00:00:00 in the account zone) or an ISO date-time', example: '2026-11-01' }),
  ApiQuery({ name: 'end', type: String, required: false, description: 'YYYY-MM-DD (23:59:59 in the account zone) or an ISO date-time', example: '2026-11-30' }),
  ApiQuery({ name: 'date', type: String, required: false, description: 'the day, week, month or year around this date', example: '2026-11-25' }),
];
const apply = (decorators: MethodDecorator[]): MethodDecorator => (t, k, d) => {
  for (const dec of decorators) dec(t, k, d);
};

/** Spec 7: `campaign_reports` delivery_stats, domain_stats and variant_stats of one campaign (docs/decisions/0046). */
@ApiTags('statistics')
@ApiBearerAuth()
@Controller('campaign_reports')
export class CampaignReportsController {
  constructor(private readonly reports: CampaignReportService) {}

  @ApiParam({ name: 'id', type: String, example: '7' })
  @apply(slice())
  @ApiOkResponse({ description: 'totals, delivery over time with clicks, per country', schema: { type: 'object', properties: { ...RANGE, campaignId: int(7), name: str('Black Friday'), grain: str('hour'), totals: { type: 'object', properties: FIGURES }, series: SERIES, countries: { type: 'array', items: { type: 'object', properties: { country: str('GB'), total: int(800), delivered: int(760), failed: int(12) } } } } } })
  @Get('delivery_stats/:id') @Permissions(Permission.CampaignView)
  delivery(@Param('id') id: string, @Query() q: Record<string, unknown>): Promise<CampaignDeliveryStatsDto> {
    return this.reports.deliveryStats(id, q);
  }

  @ApiParam({ name: 'id', type: String, example: '7' })
  @apply(slice())
  @ApiOkResponse({ description: 'figures per variant (variantId null: not known)', schema: { type: 'object', properties: { ...RANGE, campaignId: int(7), items: { type: 'array', items: { type: 'object', properties: { variantId: int(11), ...FIGURES } } } } } })
  @Get('variant_stats/:id') @Permissions(Permission.CampaignView)
  variants(@Param('id') id: string, @Query() q: Record<string, unknown>): Promise<CampaignVariantStatsDto> {
    return this.reports.variantStats(id, q);
  }

  @ApiParam({ name: 'id', type: String, example: '7' })
  @ApiOkResponse({ description: 'links minted, clicks and unique clicks per domain', schema: { type: 'object', properties: { campaignId: int(7), items: { type: 'array', items: { type: 'object', properties: { domainId: int(3), domain: str('go.example.com'), usages: int(500), clicks: int(60), uniqueClicks: int(50), ctr: { type: 'number', example: 10 } } } } } } })
  @Get('domain_stats/:id') @Permissions(Permission.CampaignView)
  domains(@Param('id') id: string): Promise<CampaignDomainStatsDto> {
    return this.reports.domainStats(id, {});
  }
}

/** Spec 7: `campaign_stats`, per_variant, ctr and dashboard (docs/decisions/0046). */
@ApiTags('statistics')
@ApiBearerAuth()
@Controller('campaign_stats')
export class CampaignStatsController {
  constructor(private readonly reports: CampaignReportService) {}

  @apply(slice())
  @ApiQuery({ name: 'campaigns', type: String, required: false, description: 'campaign ids, comma separated', example: '7,8' })
  @ApiQuery({ name: 'page', type: Number, required: false, example: 1 })
  @ApiQuery({ name: 'itemsPerPage', type: Number, required: false, example: 30 })
  @ApiOkResponse({ description: 'figures per campaign, latest activity first', schema: { type: 'object', properties: { items: { type: 'array', items: ROW }, total: int(12) } } })
  @Get() @Permissions(Permission.CampaignView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<CampaignStatsRowDto>> {
    return this.reports.campaignStats(q);
  }

  @apply(slice())
  @ApiQuery({ name: 'campaign', type: String, required: true, example: '7' })
  @ApiOkResponse({ description: 'figures per variant of the campaign', schema: { type: 'object', properties: { ...RANGE, campaignId: int(7), items: { type: 'array', items: { type: 'object', properties: { variantId: int(11), ...FIGURES } } } } } })
  @Get('per_variant') @Permissions(Permission.CampaignView)
  perVariant(@Query() q: Record<string, unknown>): Promise<CampaignVariantStatsDto> {
    return this.reports.variantStats(q.campaign ?? q.campaignId, q);
  }

  @apply(slice())
  @ApiQuery({ name: 'campaigns', type: String, required: false, example: '7' })
  @ApiOkResponse({ description: 'unique clicks over delivered per campaign', schema: { type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { campaignId: int(7), name: str('Black Friday'), delivered: int(950), uniqueClicks: int(120), clicks: int(140), ctr: { type: 'number', example: 12.63 } } } }, total: int(1) } } })
  @Get('ctr') @Permissions(Permission.CampaignView)
  ctr(@Query() q: Record<string, unknown>): Promise<ListResult<CampaignCtrDto>> {
    return this.reports.ctr(q);
  }

  @apply(slice())
  @ApiOkResponse({ description: "every campaign's totals over the slice (default one day back), a series, the four latest", schema: { type: 'object', properties: { ...RANGE, totals: { type: 'object', properties: FIGURES }, grain: str('hour'), series: SERIES, latest: { type: 'array', items: ROW } } } })
  @Get('dashboard') @Permissions(Permission.CampaignView)
  dashboard(@Query() q: Record<string, unknown>): Promise<CampaignStatsDashboardDto> {
    return this.reports.dashboard(q);
  }
}

/** Spec 7: `GET /campaign_domain_statistics` (moved here from links: a report from events, docs/decisions/0046). */
@ApiTags('campaigns')
@ApiBearerAuth()
@Controller('campaign_domain_statistics')
export class CampaignDomainStatisticsController {
  constructor(private readonly reports: CampaignReportService) {}

  @ApiQuery({ name: 'campaign', type: String, required: false, description: 'one campaign (id or IRI); none: every campaign of the account', example: '7' })
  @ApiOkResponse({ description: 'usages, clicks and unique clicks per campaign and domain', schema: { type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { campaignId: int(7), domainId: int(3), domain: str('go.example.com'), usages: int(500), clicks: int(60), uniqueClicks: int(50), ctr: { type: 'number', example: 10 } } } }, total: int(1) } } })
  @Get() @Permissions(Permission.CampaignView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<CampaignDomainStatisticsDto>> {
    return this.reports.campaignDomainStatistics(q);
  }
}
