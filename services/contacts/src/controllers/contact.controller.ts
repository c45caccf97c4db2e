import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { Permissions, type ListResult } from '@switchboard/platform';
import { CreateContactDto, UpdateContactDto, type ContactDto } from '../dtos/contact.dto';
import { ContactVariableDto, ContactVariableValueDto } from '../dtos/variable.dto';
import { caller } from '../services/access';
import { ContactService } from '../services/contact.service';
import { ContactList2Response, ContactResponse } from '../dtos/responses.dto';

@ApiTags('contacts')
@ApiBearerAuth()
@Controller('contacts')
export class ContactController {
  constructor(private readonly contacts: ContactService) {}

  @ApiQuery({ name: 'search', type: String, required: false, description: 'phone, name or email contains (phone is accepted as an alias)', example: '+4474' })
  @ApiQuery({ name: 'state', type: String, required: false, description: 'no_error (default), invalid, not_mobile, blacklist, duplicate: the rows an import rejected', example: 'no_error' })
  @ApiQuery({ name: 'optedOut', type: Boolean, required: false, description: 'true or false', example: false })
  @ApiQuery({ name: 'country', type: String, required: false, description: 'ISO 3166-1 alpha-2', example: 'GB' })
  @ApiQuery({ name: 'filter', type: String, required: false, description: 'a segment filter as JSON text', example: '{"match":"all","groups":[]}' })
  @ApiOkResponse({ type: ContactList2Response })
  @Get() @Permissions(Permission.ContactView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<ContactDto> & { nextAfter: number | null }> { return this.contacts.list(caller().accountId, q); }

  @ApiOkResponse({ type: ContactResponse })
  @Get(':id') @Permissions(Permission.ContactView)
  get(@Param('id') id: string): Promise<ContactDto> { return this.contacts.get(caller().accountId, id); }

  @ApiCreatedResponse({ type: ContactResponse })
  @Post() @Permissions(Permission.ContactAddEdit)
  create(@Body() dto: CreateContactDto): Promise<ContactDto> { return this.contacts.create(caller().accountId, dto); }

  @ApiOkResponse({ type: ContactResponse })
  @Put(':id') @Permissions(Permission.ContactAddEdit)
  update(@Param('id') id: string, @Body() dto: UpdateContactDto): Promise<ContactDto> { return this.contacts.update(caller().accountId, id, dto); }

  @Delete(':id') @Permissions(Permission.ContactRemove) @HttpCode(204)
  delete(@Param('id') id: string): Promise<void> { return this.contacts.delete(caller().accountId, id); }
}

/** One variable value of one contact (spec 7: POST and PUT /contacts_variables); both set or clear the value. */
@ApiTags('contacts')
@ApiBearerAuth()
@Controller('contacts_variables')
export class ContactVariableController {
  constructor(private readonly contacts: ContactService) {}

  @ApiCreatedResponse({ type: ContactResponse })
  @Post() @Permissions(Permission.ContactAddEdit)
  create(@Body() dto: ContactVariableDto): Promise<ContactDto> { return this.contacts.setVariable(caller().accountId, dto); }

  @ApiOkResponse({ type: ContactResponse })
  @Put() @Permissions(Permission.ContactAddEdit)
  update(@Body() dto: ContactVariableDto): Promise<ContactDto> { return this.contacts.setVariable(caller().accountId, dto); }

  @ApiOkResponse({ type: ContactResponse })
  @Put(':contactId') @Permissions(Permission.ContactAddEdit)
  updateOne(@Param('contactId') contactId: string, @Body() dto: ContactVariableValueDto): Promise<ContactDto> {
    return this.contacts.setVariable(caller().accountId, { contact: contactId, variable: dto.variable, value: dto.value });
  }
}
