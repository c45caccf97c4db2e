import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission, type DomainBulkResultDto, type DomainDto, type DomainOptionDto, type DomainsDashboardDto } from '@switchboard/contracts';
import { ApiListResponse, Permissions, SuperAdmin, type ListResult } from '@switchboard/platform';
import { DomainArchiveInput, DomainBlockInput, DomainBulkActionInput, DomainBulkAddInput, DomainCreateInput, DomainUpdateInput, MessagesLimitInput } from '../dtos/inputs.dto';
import { DomainBulkActionResponse, DomainBulkResponse, DomainOptionResponse, DomainResponse, DomainsDashboardResponse, MessagesLimitResponse } from '../dtos/responses.dto';
import { DomainService } from '../services/domain.service';
import { bool } from '../services/inputs';

const P = Permission;
const body = (b: object): Record<string, unknown> => b as Record<string, unknown>;

@ApiTags('domains')
@ApiBearerAuth()
@Controller('domains')
export class DomainsController {
  constructor(private readonly domains: DomainService) {}

  @ApiQuery({ name: 'archived', type: Number, required: false, description: '1: the archive view; 0 (default): the others', example: 0 })
  @ApiQuery({ name: 'state', type: String, required: false, description: 'states, comma-separated (0 to 7)', example: '1,6' })
  @ApiQuery({ name: 'name', type: String, required: false, description: 'name contains', example: 'example' })
  @ApiListResponse(DomainResponse)
  @Get() @Permissions(P.DomainView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<DomainDto>> { return this.domains.list(q); }

  @ApiQuery({ name: 'usable', type: Number, required: false, description: '1: only domains a link can use now (configured)', example: 1 })
  @ApiQuery({ name: 'name', type: String, required: false, description: 'name contains', example: 'example' })
  @ApiListResponse(DomainOptionResponse)
  @Get('dropdown') @Permissions(P.DomainView)
  dropdown(@Query() q: Record<string, unknown>): Promise<ListResult<DomainOptionDto>> { return this.domains.dropdown(q); }

  @ApiOkResponse({ type: DomainsDashboardResponse })
  @Get('dashboard') @Permissions(P.DomainView)
  dashboard(): Promise<DomainsDashboardDto> { return this.domains.dashboard(); }

  @ApiOkResponse({ type: MessagesLimitResponse })
  @Get('messages_limit') @Permissions(P.DomainView)
  getLimit() { return this.domains.getLimit(); }

  @ApiOkResponse({ type: MessagesLimitResponse })
  @Post('messages_limit') @Permissions(P.DomainAddEdit) @HttpCode(200)
  setLimit(@Body() dto: MessagesLimitInput) { return this.domains.setLimit(body(dto)); }

  @ApiOkResponse({ type: DomainBulkResponse, description: 'the domains added and the duplicates; with duplicates and no skipDuplicates nothing is added' })
  @Post('bulk') @Permissions(P.DomainAddEdit) @HttpCode(200)
  bulk(@Body() dto: DomainBulkAddInput): Promise<DomainBulkResultDto> {
    return this.domains.addMany(dto.domains, dto.skipDuplicates === undefined ? false : bool(dto.skipDuplicates, 'skipDuplicates'));
  }

  @ApiOkResponse({ type: DomainBulkActionResponse })
  @Post('bulk_action') @Permissions(P.DomainAddEdit) @HttpCode(200)
  bulkAction(@Body() dto: DomainBulkActionInput) { return this.domains.bulk(body(dto)); }

  @ApiOkResponse({ type: DomainResponse })
  @Post('archive/:id') @Permissions(P.DomainAddEdit) @HttpCode(200)
  archive(@Param('id') id: string, @Body() dto: DomainArchiveInput): Promise<DomainDto> {
    return this.domains.archive(id, dto.archived === undefined ? true : bool(dto.archived, 'archived'));
  }

  @ApiOkResponse({ type: DomainResponse, description: 'the domain after a DNS check made now' })
  @Post(':id/check') @Permissions(P.DomainAddEdit) @HttpCode(200)
  check(@Param('id') id: string): Promise<DomainDto> { return this.domains.checkNow(id); }

  @ApiOkResponse({ type: DomainResponse, description: 'super administrators: block (state 7) or unblock a domain of any account' })
  @Post(':id/block') @SuperAdmin() @HttpCode(200)
  block(@Param('id') id: string, @Body() dto: DomainBlockInput): Promise<DomainDto> { return this.domains.block(id, bool(dto.blocked, 'blocked')); }

  @ApiOkResponse({ type: DomainResponse })
  @Get(':id') @Permissions(P.DomainView)
  get(@Param('id') id: string): Promise<DomainDto> { return this.domains.get(id); }

  @ApiCreatedResponse({ type: DomainResponse })
  @Post() @Permissions(P.DomainAddEdit)
  create(@Body() dto: DomainCreateInput): Promise<DomainDto> { return this.domains.create(body(dto)); }

  @ApiOkResponse({ type: DomainResponse })
  @Put(':id') @Permissions(P.DomainAddEdit)
  update(@Param('id') id: string, @Body() dto: DomainUpdateInput): Promise<DomainDto> { return this.domains.update(id, body(dto)); }

  @Delete(':id') @Permissions(P.DomainRemove) @HttpCode(204)
  remove(@Param('id') id: string): Promise<void> { return this.domains.remove(id); }
}
