import { applyDecorators, Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { InboxBoard, InboxReport, Permission } from '@switchboard/contracts';
import { Permissions } from '@switchboard/platform';
import { ReportsService } from '../services/reports.service';

type Q = Record<string, unknown>;

const Doc = () =>
  applyDecorators(
    ApiParam({ name: 'board', schema: { type: 'string', enum: Object.values(InboxBoard), example: 'space_reports' } }),
    ApiParam({ name: 'space', schema: { type: 'string', example: '1' } }),
    ApiParam({ name: 'report', schema: { type: 'string', enum: Object.values(InboxReport), example: 'counters' } }),
    ApiQuery({ name: 'start', required: false, type: String, example: '2026-11-01T00:00:00Z' }),
    ApiQuery({ name: 'end', required: false, type: String, example: '2026-12-01T00:00:00Z' }),
    ApiQuery({ name: 'teams[]', required: false, type: String, isArray: true, example: ['3'] }),
    ApiQuery({ name: 'agents[]', required: false, type: String, isArray: true, example: ['12'] }),
    ApiOkResponse({
      description: 'counters: one object; the other reports: `{ items }` (libs/contracts/src/inbox.ts, InboxCountersReport and the row types)',
      schema: { type: 'object', additionalProperties: true, example: { conversations: 120, cost: 4.2, response_rate: 87.5, outbound: 310, incoming: 295 } },
    }),
  );

@ApiTags('inbox statistics')
@ApiBearerAuth()
@Controller('inbox')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Get(':board/:space/:report') @Permissions(Permission.InboxView) @Doc()
  board(@Param('board') board: string, @Param('space') space: string, @Param('report') report: string, @Query() q: Q) {
    return this.reports.report(board, space, null, report, q);
  }

  @Get(':board/:space/:entity/:report') @Permissions(Permission.InboxView) @Doc() @ApiParam({ name: 'entity', schema: { type: 'string', example: '3' }, description: 'the team (team_reports) or agent (agent_reports)' })
  entity(@Param('board') board: string, @Param('space') space: string, @Param('entity') entity: string, @Param('report') report: string, @Query() q: Q) {
    return this.reports.report(board, space, entity, report, q);
  }
}
