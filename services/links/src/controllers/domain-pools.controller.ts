import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission, type DomainDto, type DomainPoolDto, type DomainPoolOptionDto, type DomainPoolsDashboardDto } from '@switchboard/contracts';
import { ApiListResponse, Permissions, type ListResult } from '@switchboard/platform';
import { DomainPoolInput, PoolDomainsInput, PoolSettingsInput } from '../dtos/inputs.dto';
import { DomainPoolOptionResponse, DomainPoolResponse, DomainPoolsDashboardResponse, DomainResponse, PoolSettingsResponse } from '../dtos/responses.dto';
import { PoolService } from '../services/pool.service';

const P = Permission;
const body = (b: object): Record<string, unknown> => b as Record<string, unknown>;

/** Domain pools live under the domain permissions (spec 6 has no pool permission of their own). */
@ApiTags('domains')
@ApiBearerAuth()
@Controller('domain_pools')
export class DomainPoolsController {
  constructor(private readonly pools: PoolService) {}

  @ApiQuery({ name: 'name', type: String, required: false, description: 'name contains', example: 'spring' })
  @ApiListResponse(DomainPoolResponse)
  @Get() @Permissions(P.DomainView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<DomainPoolDto>> { return this.pools.list(q); }

  @ApiListResponse(DomainPoolOptionResponse)
  @Get('dropdown') @Permissions(P.DomainView)
  dropdown(): Promise<ListResult<DomainPoolOptionDto>> { return this.pools.dropdown(); }

  @ApiOkResponse({ type: DomainPoolsDashboardResponse })
  @Get('dashboard') @Permissions(P.DomainView)
  dashboard(): Promise<DomainPoolsDashboardDto> { return this.pools.dashboard(); }

  @ApiOkResponse({ type: PoolSettingsResponse })
  @Get('settings') @Permissions(P.DomainView)
  async settings() { return { maxDomainsPerPool: await this.pools.maxDomainsPerPool() }; }

  @ApiOkResponse({ type: PoolSettingsResponse })
  @Put('settings') @Permissions(P.DomainAddEdit)
  setSettings(@Body() dto: PoolSettingsInput) { return this.pools.setMaxDomainsPerPool(body(dto)); }

  @ApiListResponse(DomainResponse, { description: "the pool info: the pool's domains in order" })
  @Get(':id/domains') @Permissions(P.DomainView)
  domains(@Param('id') id: string): Promise<ListResult<DomainDto>> { return this.pools.domains(id); }

  @ApiOkResponse({ type: DomainPoolResponse })
  @Post(':id/domains') @Permissions(P.DomainAddEdit) @HttpCode(200)
  addDomains(@Param('id') id: string, @Body() dto: PoolDomainsInput): Promise<DomainPoolDto> { return this.pools.addDomains(id, body(dto)); }

  @ApiOkResponse({ type: DomainPoolResponse })
  @Delete(':id/domains/:domainId') @Permissions(P.DomainAddEdit) @HttpCode(200)
  removeDomain(@Param('id') id: string, @Param('domainId') domainId: string): Promise<DomainPoolDto> { return this.pools.removeDomain(id, domainId); }

  @ApiOkResponse({ type: DomainPoolResponse })
  @Get(':id') @Permissions(P.DomainView)
  get(@Param('id') id: string): Promise<DomainPoolDto> { return this.pools.get(id); }

  @ApiCreatedResponse({ type: DomainPoolResponse })
  @Post() @Permissions(P.DomainAddEdit)
  create(@Body() dto: DomainPoolInput): Promise<DomainPoolDto> { return this.pools.create(body(dto)); }

  @ApiOkResponse({ type: DomainPoolResponse })
  @Put(':id') @Permissions(P.DomainAddEdit)
  update(@Param('id') id: string, @Body() dto: DomainPoolInput): Promise<DomainPoolDto> { return this.pools.update(id, body(dto)); }

  @Delete(':id') @Permissions(P.DomainRemove) @HttpCode(204)
  remove(@Param('id') id: string): Promise<void> { return this.pools.remove(id); }
}
