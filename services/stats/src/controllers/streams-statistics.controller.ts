import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission, type StreamsStatisticsDto } from '@switchboard/contracts';
import { Permissions } from '@switchboard/platform';
import { StatisticsResponse, SubscribeDto } from '../dtos/streams-statistics.dto';
import { ReportService } from '../services/report.service';

/**
 * The stream pages' figures, answered from the rollups (moved from the streams service, same paths and answers:
 * docs/decisions/0028-statistics.md, "Streams statistics"). In embedded mode StatsModule is registered before
 * StreamsModule so these paths are matched before streams' `GET /streams/:id`.
 */
@ApiTags('streams')
@ApiBearerAuth()
@Controller('streams')
export class StreamsStatisticsController {
  constructor(private readonly reports: ReportService) {}

  @ApiQuery({ name: 'start', type: String, required: false, description: 'from: YYYY-MM-DD (00:00:00 in the account zone) or an ISO date-time; default one day back', example: '2026-11-24T00:00:00Z' })
  @ApiQuery({ name: 'end', type: String, required: false, description: 'to: YYYY-MM-DD (23:59:59 in the account zone) or an ISO date-time; default now', example: '2026-11-25T23:59:59Z' })
  @ApiQuery({ name: 'streamId', type: Number, required: false, description: 'only this stream', example: 7 })
  @ApiOkResponse({ type: StatisticsResponse })
  @Get('statistics') @Permissions(Permission.StreamView)
  statistics(@Query() q: Record<string, unknown>): Promise<StreamsStatisticsDto> { return this.reports.streamStatistics(q); }

  @ApiOkResponse({ type: StatisticsResponse })
  @Post('subscribe') @Permissions(Permission.StreamView) @HttpCode(200)
  subscribe(@Body() dto: SubscribeDto): Promise<StreamsStatisticsDto> { return this.reports.streamSubscribe(dto as unknown as Record<string, unknown>); }
}
