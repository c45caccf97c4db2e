import { Body, Controller, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { ApiListResponse, Authenticated, CurrentPrincipal, Permissions, SuperAdmin, type ListResult, type Principal } from '@switchboard/platform';
import {
  ApproveCustomerDto,
  BalanceAdjustmentDto,
  CreateCustomerDto,
  CustomerStatusDto,
  DropdownDataDto,
  FeatureAccessRequestDto,
  SuperAdminCustomersDto,
  UpdateCustomerDto,
} from '../dtos/customer.dto';
import { BalanceService, type AdjustmentResult } from '../services/balance.service';
import type { BalanceEntryDto, CustomerDto, DropdownCustomerDto } from '../services/customer-view';
import { CustomerService } from '../services/customer.service';
import { DropdownService, type DropdownOption } from '../services/dropdown.service';
import { FeatureRequestService, type FeatureRequestDto } from '../services/feature-request.service';
import { AdjustmentResultResponse, BalanceEntryResponse, CustomerResponse, DropdownCustomerResponse, DropdownOptionResponse, FeatureRequestResponse } from '../dtos/responses.dto';

/** Spec 7, "Users and accounts": the customer routes. Fixed paths come before `:id` so they are matched first. */
@ApiTags('customers')
@ApiBearerAuth()
@Controller('customers')
export class CustomerController {
  constructor(
    private readonly customers: CustomerService,
    private readonly balances: BalanceService,
    private readonly dropdowns: DropdownService,
    private readonly features: FeatureRequestService,
  ) {}

  @ApiCreatedResponse({ type: CustomerResponse })
  @Post() @SuperAdmin()
  create(@Body() dto: CreateCustomerDto): Promise<CustomerDto> { return this.customers.create(dto); }

  @ApiListResponse(DropdownCustomerResponse)
  @Get('dropdown') @Authenticated()
  dropdown(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>): Promise<ListResult<DropdownCustomerDto>> { return this.customers.dropdown(p, q); }

  @ApiOkResponse({ type: CustomerResponse })
  @Post('status') @HttpCode(200) @SuperAdmin()
  status(@Body() dto: CustomerStatusDto): Promise<CustomerDto> { return this.customers.setStatus(dto); }

  @ApiCreatedResponse({ type: FeatureRequestResponse })
  @Post('feature_access_request') @Authenticated({ accountRequired: true })
  featureAccessRequest(@CurrentPrincipal() p: Principal, @Body() dto: FeatureAccessRequestDto): Promise<FeatureRequestDto> { return this.features.request(p, dto); }

  @ApiListResponse(DropdownOptionResponse)
  @Post('get_dropdown_data') @HttpCode(200) @Authenticated()
  dropdownData(@CurrentPrincipal() p: Principal, @Body() dto: DropdownDataDto): Promise<ListResult<DropdownOption>> { return this.dropdowns.data(p, dto); }

  @ApiListResponse(CustomerResponse)
  @Post('superadmin/all') @HttpCode(200) @SuperAdmin()
  all(@Body() dto: SuperAdminCustomersDto): Promise<ListResult<CustomerDto>> { return this.customers.superAdminList(dto); }

  @ApiOkResponse({ type: CustomerResponse })
  @Post('superadmin/approve') @HttpCode(200) @SuperAdmin()
  approve(@Body() dto: ApproveCustomerDto): Promise<CustomerDto> { return this.customers.approve(dto.customer_id); }

  @ApiOkResponse({ type: CustomerResponse })
  @Get(':id') @Authenticated({ accountRequired: true })
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<CustomerDto> { return this.customers.get(p, id); }

  @ApiOkResponse({ type: CustomerResponse })
  @Put(':id') @Permissions(Permission.SettingsEdit)
  update(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() dto: UpdateCustomerDto): Promise<CustomerDto> { return this.customers.update(p, id, dto); }

  @ApiCreatedResponse({ type: AdjustmentResultResponse })
  @Post(':id/balance') @SuperAdmin()
  adjustBalance(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() dto: BalanceAdjustmentDto): Promise<AdjustmentResult> { return this.balances.adjust(p, id, dto); }

  @ApiListResponse(BalanceEntryResponse)
  @Get(':id/balance_entries') @Permissions(Permission.CostView)
  balanceEntries(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query() q: Record<string, unknown>): Promise<ListResult<BalanceEntryDto>> { return this.balances.entries(p, id, q); }
}
