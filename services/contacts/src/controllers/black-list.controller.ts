import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { ApiListResponse, Permissions, type ListResult } from '@switchboard/platform';
import { CreateBlackListDto, type BlackListDto } from '../dtos/black-list.dto';
import { caller } from '../services/access';
import { BlackListService } from '../services/black-list.service';
import { BlackListResponse } from '../dtos/responses.dto';

/** Blocked destinations. Bulk additions go through an import list of type blacklist. */
@ApiTags('contacts')
@ApiBearerAuth()
@Controller('black_lists')
export class BlackListController {
  constructor(private readonly blacklist: BlackListService) {}

  @ApiQuery({ name: 'phone', type: String, required: false, description: 'only this number', example: '+447400123456' })
  @ApiQuery({ name: 'importList', type: String, required: false, description: 'only the numbers of this import list (id or IRI)', example: '12' })
  @ApiListResponse(BlackListResponse)
  @Get() @Permissions(Permission.BlockDestinationView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<BlackListDto>> { return this.blacklist.list(caller().accountId, q); }

  @ApiCreatedResponse({ type: BlackListResponse })
  @Post() @Permissions(Permission.BlockDestinationAddEdit)
  create(@Body() dto: CreateBlackListDto): Promise<BlackListDto> { return this.blacklist.create(caller().accountId, dto); }

  @Delete(':id') @Permissions(Permission.BlockDestinationRemove) @HttpCode(204)
  delete(@Param('id') id: string): Promise<void> { return this.blacklist.delete(caller().accountId, id); }
}
