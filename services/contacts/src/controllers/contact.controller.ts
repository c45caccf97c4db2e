import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
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
