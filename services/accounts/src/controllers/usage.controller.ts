import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal, type Principal } from '@switchboard/platform';
import { UsageService, type DailyUsageDto } from '../services/usage.service';
import { DailyUsageResponse } from '../dtos/responses.dto';

@ApiTags('customers')
@ApiBearerAuth()
@Controller('daily_usage_and_limit')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @ApiOkResponse({ type: DailyUsageResponse })
  @Get() @Authenticated({ accountRequired: true })
  get(@CurrentPrincipal() p: Principal): Promise<DailyUsageDto> { return this.usage.daily(p); }
}
