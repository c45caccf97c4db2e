import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Permission, type DashboardMainDto, type TopDestinationsDto } from '@switchboard/contracts';
import { Permissions } from '@switchboard/platform';
import { ReportService } from '../services/report.service';

const FILTERS = {
  type: { type: 'string', enum: ['day', 'week', 'month', 'year', 'custom', 'all', '1', '2', '3', '4'], description: 'time slice: day, week, month, year (or 1..4), custom (start and end), all; none: one day back to now', example: 'week' },
  start: { type: 'string', description: 'custom slice start: YYYY-MM-DD (00:00:00 in the account zone) or an ISO date-time', example: '2026-11-01' },
  end: { type: 'string', description: 'custom slice end: YYYY-MM-DD (23:59:59 in the account zone) or an ISO date-time', example: '2026-11-25' },
  date: { type: 'string', description: 'the day, week, month or year around this date (default today)', example: '2026-11-25' },
  streams: { type: 'array', items: { type: 'integer' }, description: 'only these streams', example: [7] },
  accountId: { type: 'string', description: 'super administrators: another account, or "all"', example: 'all' },
};

const int = (example: number) => ({ type: 'integer', example });
const str = (example: string, description?: string) => ({ type: 'string', example, ...(description ? { description } : {}) });
const COUNTS = {
  total: int(1250),
  accepted: int(3),
  sent: int(40),
  delivered: int(1150),
  sent_failed: int(10),
  undelivered: int(40),
  no_routes: int(5),
  rejected: int(2),
  failed: int(57),
  pending: int(43),
  parts: int(1400),
};
const MONEY = {
  type: 'array',
  nullable: true,
  description: 'per currency; null without COST_VIEW',
  items: { type: 'object', properties: { currency: str('EUR'), micros: str('62500000', 'micro-units, exact'), amount: str('62.50') } },
};
const RANGE = {
  slice: str('week', 'day, week, month, year, custom, all, or default (one day back to now)'),
  start: str('2026-11-23T00:00:00.000Z', 'null for all'),
  end: str('2026-11-29T23:59:59.000Z', 'inclusive; null for all'),
  timeZone: str('Europe/Berlin'),
  account: str('7', 'an account id, or all'),
  cached: { type: 'boolean', example: false, description: 'answered from the two-minute cache' },
};
const MAIN_RESPONSE = {
  type: 'object',
  properties: {
    ...RANGE,
    totals: { type: 'object', properties: COUNTS },
    cost: MONEY,
    currency: str('EUR'),
    grain: str('day', 'hour, day or month'),
    series: {
      type: 'array',
      items: { type: 'object', properties: { bucket: str('2026-11-24'), total: int(180), delivered: int(170), failed: int(6), pending: int(4), costMicros: str('9000000') } },
    },
    streams: {
      type: 'array',
      nullable: true,
      items: { type: 'object', properties: { streamId: int(7), name: str('Orders'), streamType: int(2), ...COUNTS, cost: MONEY } },
    },
    clicked: { type: 'integer', nullable: true, example: null, description: 'waits for the links service' },
    waiting: { type: 'array', items: str('clicked') },
  },
};
const TOP_RESPONSE = {
  type: 'object',
  properties: {
    ...RANGE,
    items: { type: 'array', items: { type: 'object', properties: { country: str('GB'), total: int(800), delivered: int(760), failed: int(12), cost: MONEY } } },
  },
};

/** Spec 7: POST /dashboard_statistics/main and /dashboard_statistics/top_destinations (docs/decisions/0028). */
@ApiTags('statistics')
@ApiBearerAuth()
@Controller('dashboard_statistics')
export class DashboardStatisticsController {
  constructor(private readonly reports: ReportService) {}

  @ApiBody({ schema: { type: 'object', properties: FILTERS } })
  @ApiOkResponse({ description: 'totals per status, cost per currency (COST_VIEW), a series over the slice, per stream (STREAM_VIEW)', schema: MAIN_RESPONSE })
  @Post('main') @HttpCode(200) @Permissions(Permission.DashboardView)
  main(@Body() body: Record<string, unknown>): Promise<DashboardMainDto> {
    return this.reports.main(body ?? {});
  }

  @ApiBody({ schema: { type: 'object', properties: { ...FILTERS, limit: { type: 'integer', description: '1..250, default 10', example: 10 } } } })
  @ApiOkResponse({ description: 'countries by messages sent, most first, with delivered, failed and cost (COST_VIEW)', schema: TOP_RESPONSE })
  @Post('top_destinations') @HttpCode(200) @Permissions(Permission.DashboardView)
  topDestinations(@Body() body: Record<string, unknown>): Promise<TopDestinationsDto> {
    return this.reports.topDestinations(body ?? {});
  }
}
