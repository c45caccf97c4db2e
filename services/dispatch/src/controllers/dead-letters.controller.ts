import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import {
  ApiListResponse,
  AppError,
  DEAD_LETTER_STATUSES,
  DeadLetterStore,
  parseDeadLetterId,
  parseListQuery,
  SuperAdmin,
  type DeadLetterDetail,
  type DeadLetterFilter,
  type DeadLetterStatus,
  type DeadLetterView,
  type ListResult,
} from '@switchboard/platform';
import { DeadLetterDetailResponse, DeadLetterResponse, ReplayDeadLettersDto, ReplayRequestedResponse } from '../dtos/dead-letters.dto';

const NAME = /^[a-z_][a-z0-9_.-]{0,120}$/;

/**
 * The dead letters of every service (each keeps them in its schema's `dead_letter` table): what consumer groups gave
 * up on and what an outbox relay could never publish. Super administrators list them and ask for replays; the
 * process running the letter's group carries the replay out within seconds (DeadLetterReplayer). Served by dispatch
 * (the gateway routes `/api/dead_letters` here) and read over the shared database, like the `dlq` CLI.
 */
@ApiTags('dead_letters')
@ApiBearerAuth()
@Controller('dead_letters')
export class DeadLettersController {
  constructor(@Inject(DeadLetterStore) private readonly store: DeadLetterStore) {}

  /** `?service=dispatch&status=dead&group=dispatch.sender&page=1&itemsPerPage=25`, newest first. */
  @ApiListResponse(DeadLetterResponse)
  @ApiQuery({ name: 'service', required: false, type: String, example: 'dispatch' })
  @ApiQuery({ name: 'status', required: false, schema: { type: 'string', enum: [...DEAD_LETTER_STATUSES], example: 'dead' } })
  @ApiQuery({ name: 'group', required: false, type: String, example: 'dispatch.sender' })
  @ApiQuery({ name: 'page', required: false, type: Number, example: 1 })
  @ApiQuery({ name: 'itemsPerPage', required: false, type: Number, example: 25 })
  @Get() @SuperAdmin()
  async list(@Query() q: Record<string, unknown>): Promise<ListResult<DeadLetterView>> {
    const page = parseListQuery(q, { sortable: ['failedAt'], defaultOrder: { failedAt: 'DESC' }, defaultItemsPerPage: 25, maxItemsPerPage: 1000 });
    const filter = await this.filter(q);
    const [items, total] = await Promise.all([this.store.list({ ...filter, limit: page.take, offset: page.skip }), this.store.count(filter)]);
    return { items, total };
  }

  /** Asks for a replay of every `dead` letter, of one service and/or group when given. */
  @ApiAcceptedResponse({ type: ReplayRequestedResponse })
  @Post('replay') @HttpCode(202) @SuperAdmin()
  async replayAll(@Body() body: ReplayDeadLettersDto): Promise<{ requested: number }> {
    const filter = await this.filter({ service: body?.service, group: body?.group }, false);
    return { requested: await this.store.requestReplayAll(filter) };
  }

  @ApiOkResponse({ type: DeadLetterDetailResponse })
  @Get(':id') @SuperAdmin()
  async get(@Param('id') id: string): Promise<DeadLetterDetail> {
    const letter = parseDeadLetterId(id) ? await this.store.get(id) : null;
    if (!letter) throw AppError.notFound('dead letter');
    return letter;
  }

  /** 202: the letter is `replay_requested` (or already being replayed); 409 once it was replayed. */
  @ApiAcceptedResponse({ type: DeadLetterResponse })
  @Post(':id/replay') @HttpCode(202) @SuperAdmin()
  async replay(@Param('id') id: string): Promise<DeadLetterView> {
    const letter = parseDeadLetterId(id) ? await this.store.requestReplay(id) : null;
    if (!letter) throw AppError.notFound('dead letter');
    if (letter.status === 'replayed') throw AppError.conflict(`dead letter ${id} was replayed already`);
    return letter;
  }

  private async filter(q: Record<string, unknown>, withStatus = true): Promise<DeadLetterFilter> {
    const violations: Array<{ propertyPath: string; message: string }> = [];
    const text = (name: string): string | undefined => {
      const v = q[name];
      if (v === undefined || v === '') return undefined;
      if (typeof v !== 'string' || !NAME.test(v)) violations.push({ propertyPath: name, message: `not a valid ${name}` });
      return typeof v === 'string' ? v : undefined;
    };
    const service = text('service');
    const group = text('group');
    const status = withStatus ? q.status : undefined;
    if (status !== undefined && status !== '' && !DEAD_LETTER_STATUSES.includes(status as DeadLetterStatus)) {
      violations.push({ propertyPath: 'status', message: `must be one of ${DEAD_LETTER_STATUSES.join(', ')}` });
    }
    if (service && !violations.length && !(await this.store.services(true)).includes(service)) violations.push({ propertyPath: 'service', message: `no service "${service}" keeps dead letters` });
    if (violations.length) throw AppError.validation(violations);
    return { service, group, status: status ? (status as DeadLetterStatus) : undefined };
  }
}
