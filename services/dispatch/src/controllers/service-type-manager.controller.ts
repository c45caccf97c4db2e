import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiListResponse, CurrentPrincipal, SuperAdmin, type ListResult, type Principal } from '@switchboard/platform';
import { CountryRouteDto, CreateVendorDto, CustomerCountryRouteDto, SimulatorVendorConfigDto, SmppVendorConfigDto, UpdateVendorDto } from '../dtos/routing.dto';
import type { CountryRouteRow, RoutingHistoryRow } from '../repositories/routing.repository';
import { RoutingAdminService, type AwaitingReceipts, type VendorDto } from '../services/routing-admin.service';
import { AwaitingReceiptsResponse, CountryRouteResponse, RoutingHistoryResponse, ServiceTypeManagerCurrentRoutingResponse, ServiceTypeManagerRefreshResponse, VendorResponse } from '../dtos/responses.dto';

@ApiTags('service_type_manager')
@ApiExtraModels(SmppVendorConfigDto, SimulatorVendorConfigDto)
@ApiBearerAuth()
@Controller('service_type_manager')
export class ServiceTypeManagerController {
  constructor(private readonly admin: RoutingAdminService) {}

  @ApiListResponse(CountryRouteResponse)
  @Get('countries_mapping') @SuperAdmin()
  countries(): Promise<ListResult<CountryRouteRow>> { return this.admin.globalRoutes(); }

  @ApiOkResponse({ type: CountryRouteResponse })
  @Put('countries_mapping') @SuperAdmin()
  setCountry(@Body() dto: CountryRouteDto, @CurrentPrincipal() p: Principal): Promise<CountryRouteRow | null> { return this.admin.setGlobalRoute(dto, p); }

  @ApiQuery({ name: 'customerId', type: String, required: true, description: 'the account', example: '1' })
  @ApiListResponse(CountryRouteResponse)
  @Get('customer_countries_mapping') @SuperAdmin()
  customerCountries(@Query('customerId') customerId: unknown): Promise<ListResult<CountryRouteRow>> { return this.admin.customerRoutes(customerId); }

  @ApiOkResponse({ type: CountryRouteResponse })
  @Put('customer_countries_mapping') @SuperAdmin()
  setCustomerCountry(@Body() dto: CustomerCountryRouteDto, @CurrentPrincipal() p: Principal): Promise<CountryRouteRow | null> { return this.admin.setCustomerRoute(dto, p); }

  @ApiCreatedResponse({ type: ServiceTypeManagerRefreshResponse })
  @Post('refresh') @SuperAdmin()
  refresh(): Promise<{ refreshed: true; vendors: number }> { return this.admin.refresh(); }

  @ApiListResponse(VendorResponse)
  @Get('vendors') @SuperAdmin()
  vendors(): Promise<ListResult<VendorDto>> { return this.admin.vendors(); }

  @ApiQuery({ name: 'iso2', type: String, required: false, description: 'the destination country', example: 'GB' })
  @ApiQuery({ name: 'serviceType', type: String, required: false, description: 'sms (default), whatsapp, telegram, telegram_private', example: 'sms' })
  @ApiQuery({ name: 'customerId', type: String, required: false, description: 'the account whose route applies (its own route before the global one)', example: '1' })
  @ApiOkResponse({ type: ServiceTypeManagerCurrentRoutingResponse })
  @Get('current_routing') @SuperAdmin()
  currentRouting(@Query() q: Record<string, unknown>): ReturnType<RoutingAdminService['currentRouting']> { return this.admin.currentRouting(q); }

  /** Sent messages waiting for a receipt past their vendor's limit (`receiptOverdueMs`, default 1 h), oldest first. */
  @ApiOkResponse({ type: AwaitingReceiptsResponse })
  @ApiQuery({ name: 'vendorId', required: false, type: String, example: '5', description: 'only this vendor' })
  @ApiQuery({ name: 'page', required: false, type: Number, example: 1 })
  @ApiQuery({ name: 'itemsPerPage', required: false, type: Number, example: 25 })
  @Get('awaiting_receipts') @SuperAdmin()
  awaitingReceipts(@Query() q: Record<string, unknown>): Promise<AwaitingReceipts> { return this.admin.awaitingReceipts(q); }

  @ApiQuery({ name: 'customerId', type: String, required: false, description: "only this account's route changes", example: '1' })
  @ApiQuery({ name: 'iso2', type: String, required: false, description: 'only this country', example: 'GB' })
  @ApiListResponse(RoutingHistoryResponse)
  @Get('routing_history') @SuperAdmin()
  history(@Query() q: Record<string, unknown>): Promise<ListResult<RoutingHistoryRow>> { return this.admin.history(q); }

  @ApiCreatedResponse({ type: VendorResponse })
  @Post('vendor') @SuperAdmin()
  createVendor(@Body() dto: CreateVendorDto): Promise<VendorDto> { return this.admin.createVendor(dto); }

  @ApiOkResponse({ type: VendorResponse })
  @Get('vendor/:id') @SuperAdmin()
  vendor(@Param('id') id: string): Promise<VendorDto> { return this.admin.vendor(id); }

  @ApiOkResponse({ type: VendorResponse })
  @Put('vendor/:id') @SuperAdmin()
  updateVendor(@Param('id') id: string, @Body() dto: UpdateVendorDto): Promise<VendorDto> { return this.admin.updateVendor(id, dto); }
}
