import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { ApiListResponse, Authenticated, Permissions, type ListResult } from '@switchboard/platform';
import { CreateVariableDto, UpdateVariableDto, type VariableDto } from '../dtos/variable.dto';
import { caller } from '../services/access';
import { VariableService } from '../services/variable.service';
import { VariableResponse } from '../dtos/responses.dto';

/** Reading variables is open to every member of the account: imports, templates and campaigns all pick from them. */
@ApiTags('contacts')
@ApiBearerAuth()
@Controller('variables')
export class VariableController {
  constructor(private readonly variables: VariableService) {}

  @ApiQuery({ name: 'name', type: String, required: false, description: 'name contains', example: 'city' })
  @ApiQuery({ name: 'isStandard', type: Boolean, required: false, description: 'true: the standard variables (phone, firstName, ...); false: the custom ones', example: false })
  @ApiListResponse(VariableResponse)
  @Get() @Authenticated({ accountRequired: true })
  list(@Query() q: Record<string, unknown>): Promise<ListResult<VariableDto>> { return this.variables.list(caller().accountId, q); }

  @ApiOkResponse({ type: VariableResponse })
  @Get(':id') @Authenticated({ accountRequired: true })
  get(@Param('id') id: string): Promise<VariableDto> { return this.variables.get(caller().accountId, id); }

  @ApiCreatedResponse({ type: VariableResponse })
  @Post() @Permissions(Permission.ContactFieldAddEdit)
  create(@Body() dto: CreateVariableDto): Promise<VariableDto> { return this.variables.create(caller().accountId, dto); }

  @ApiOkResponse({ type: VariableResponse })
  @Put(':id') @Permissions(Permission.ContactFieldAddEdit)
  update(@Param('id') id: string, @Body() dto: UpdateVariableDto): Promise<VariableDto> { return this.variables.update(caller().accountId, id, dto); }

  @Delete(':id') @Permissions(Permission.ContactFieldRemove) @HttpCode(204)
  delete(@Param('id') id: string): Promise<void> { return this.variables.delete(caller().accountId, id); }
}
