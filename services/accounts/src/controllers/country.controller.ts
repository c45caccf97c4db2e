import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { ApiListResponse, Authenticated, CurrentPrincipal, Permissions, SuperAdmin, type ListResult, type Principal } from '@switchboard/platform';
import { CountryOverrideDto, GlobalCountryDto } from '../dtos/country.dto';
import { CountryService, type CountryDto, type CountryPriceDto, type GlobalCountryView, type SendingHoursDto, type TimezoneDto } from '../services/country.service';
import { CountryPriceResponse, CountryResponse, GlobalCountryResponse, SendingHoursResponse, TimezoneResponse } from '../dtos/responses.dto';

/** Spec 7, "Countries". Fixed paths come before `:id`. */
@ApiTags('countries')
@ApiBearerAuth()
@Controller('countries')
export class CountryController {
  constructor(private readonly countries: CountryService) {}

  @ApiListResponse(CountryResponse)
  @Get() @Authenticated()
  list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>): Promise<ListResult<CountryDto>> { return this.countries.list(p, q); }

  @ApiListResponse(CountryPriceResponse)
  @Get('prices') @Permissions(Permission.CostView)
  prices(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>): Promise<ListResult<CountryPriceDto>> { return this.countries.prices(p, q); }

  @ApiListResponse(SendingHoursResponse)
  @Get('sending_hours') @Permissions(Permission.SendingHoursView)
  sendingHours(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>): Promise<ListResult<SendingHoursDto>> { return this.countries.sendingHours(p, q); }

  @ApiListResponse(GlobalCountryResponse)
  @Get('global') @SuperAdmin()
  listGlobal(@Query() q: Record<string, unknown>): Promise<ListResult<GlobalCountryView>> { return this.countries.listGlobal(q); }

  @ApiOkResponse({ type: GlobalCountryResponse })
  @Get('global/:id') @SuperAdmin()
  getGlobal(@Param('id') id: string): Promise<GlobalCountryView> { return this.countries.getGlobal(id); }

  @ApiOkResponse({ type: GlobalCountryResponse })
  @Put('global/:id') @SuperAdmin()
  updateGlobal(@Param('id') id: string, @Body() dto: GlobalCountryDto): Promise<GlobalCountryView> { return this.countries.updateGlobal(id, dto); }

  @ApiOkResponse({ type: CountryResponse })
  @Get(':id') @Authenticated()
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<CountryDto> { return this.countries.get(p, id); }

  @ApiOkResponse({ type: CountryResponse })
  @Put(':id') @Permissions(Permission.SendingHoursEdit)
  update(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() dto: CountryOverrideDto): Promise<CountryDto> { return this.countries.updateOverride(p, id, dto); }
}

@ApiTags('countries')
@ApiBearerAuth()
@Controller('timezones')
export class TimezoneController {
  constructor(private readonly countries: CountryService) {}

  @ApiListResponse(TimezoneResponse)
  @Get() @Authenticated()
  list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>): Promise<ListResult<TimezoneDto>> { return this.countries.timezones(p, q); }

  @ApiOkResponse({ type: TimezoneResponse })
  @Get(':id') @Authenticated()
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<TimezoneDto> { return this.countries.getTimezone(p, id); }
}
