import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { ApiListResponse, Permissions, type ListResult } from '@switchboard/platform';
import { CreateContactListDto, TotalByFilterDto, UpdateContactListDto, type ContactListDto } from '../dtos/contact-list.dto';
import { caller } from '../services/access';
import { ContactListService } from '../services/contact-list.service';
import { ContactListMissingVariablesResponse, ContactListResponse, ContactListTotalByFilterResponse } from '../dtos/responses.dto';

@ApiTags('contacts')
@ApiBearerAuth()
@Controller('contact_lists')
export class ContactListController {
  constructor(private readonly lists: ContactListService) {}

  @ApiQuery({ name: 'type', type: String, required: false, description: 'list, segment or integration', example: 'list' })
  @ApiQuery({ name: 'status', type: Number, required: false, description: '0 initializing, 1 processing, 2 ready', example: 2 })
  @ApiQuery({ name: 'name', type: String, required: false, description: 'name contains', example: 'Customers' })
  @ApiListResponse(ContactListResponse)
  @Get() @Permissions(Permission.ContactListSegmentView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<ContactListDto>> { return this.lists.list(caller().accountId, q); }

  @ApiOkResponse({ type: ContactListTotalByFilterResponse })
  @Post('total_by_filter') @Permissions(Permission.ContactListSegmentView) @HttpCode(200)
  totalByFilter(@Body() dto: TotalByFilterDto): Promise<{ total: number }> { return this.lists.totalByFilter(caller().accountId, dto.filter); }

  @ApiListResponse(ContactListMissingVariablesResponse)
  @Get('missing_variables') @Permissions(Permission.ContactListSegmentView)
  missingVariables(@Query() q: Record<string, unknown>): Promise<ListResult<{ id: number; name: string; missing: number; total: number }>> { return this.lists.missingVariables(caller().accountId, q); }

  @ApiOkResponse({ type: ContactListResponse })
  @Get(':id') @Permissions(Permission.ContactListSegmentView)
  get(@Param('id') id: string): Promise<ContactListDto> { return this.lists.get(caller().accountId, id); }

  @ApiCreatedResponse({ type: ContactListResponse })
  @Post() @Permissions(Permission.ContactListSegmentAdd)
  create(@Body() dto: CreateContactListDto): Promise<ContactListDto> { return this.lists.create(caller().accountId, dto); }

  @ApiOkResponse({ type: ContactListResponse })
  @Put(':id') @Permissions(Permission.ContactListSegmentEdit)
  update(@Param('id') id: string, @Body() dto: UpdateContactListDto): Promise<ContactListDto> { return this.lists.update(caller().accountId, id, dto); }

  @Delete(':id') @Permissions(Permission.ContactListSegmentRemove) @HttpCode(204)
  delete(@Param('id') id: string): Promise<void> { return this.lists.delete(caller().accountId, id); }
}
