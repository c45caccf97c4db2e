import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiListResponse, SuperAdmin, type ListResult } from '@switchboard/platform';
import { UnclaimedInboundResponse } from '../dtos/responses.dto';
import { InboundUnclaimedService, type UnclaimedInboundDto } from '../services/inbound-unclaimed.service';

/** Inbound messages no account owns (docs/decisions/0021): for the super administrator only. */
@ApiTags('dispatch')
@ApiBearerAuth()
@Controller('dispatch/inbound_unclaimed')
export class InboundUnclaimedController {
  constructor(private readonly unclaimed: InboundUnclaimedService) {}

  @ApiListResponse(UnclaimedInboundResponse)
  @Get() @SuperAdmin()
  list(@Query() q: Record<string, unknown>): Promise<ListResult<UnclaimedInboundDto>> { return this.unclaimed.list(q); }
}
