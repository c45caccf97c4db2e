import { Body, Controller, Delete, Get, Header, Headers, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission, type DialerContactDto, type DialerConversationResponse, type IntegrationContactDto, type IntegrationConfigResponse, type IntegrationContactFieldDto, type IntegrationContactFilterDto, type IntegrationDropdownItemDto, type IntegrationInstallResponse, type IntegrationKeyDto, type IntegrationNoteDto, type IntegrationOptionDto, type SyncProgressDto } from '@switchboard/contracts';
import { ApiListResponse, Permissions, Public, type ListResult } from '@switchboard/platform';
import {
  DialerContactResponse,
  DialerConversationBody,
  DialerConversationResponseBody,
  IntegrationContactResponse,
  IntegrationConfigBody,
  IntegrationConfigResponseBody,
  IntegrationContactFieldResponse,
  IntegrationContactFilterResponse,
  IntegrationDropdownItemResponse,
  IntegrationInstallBody,
  IntegrationInstallResponseBody,
  IntegrationKeyResponse,
  IntegrationOptionResponse,
  IntegrationUpdateBody,
  IntegrationNoteBody,
  IntegrationNoteResponse,
  SyncProgressResponse,
} from '../dtos/responses.dto';
import { DialerService } from '../services/dialer.service';
import { IntegrationsService } from '../services/integrations.service';
import { NotesService } from '../services/notes.service';

const P = Permission;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

@ApiTags('integrations')
@ApiBearerAuth()
@Controller('integration_keys')
export class IntegrationKeysController {
  constructor(
    private readonly integrations: IntegrationsService,
    private readonly dialer: DialerService,
    private readonly notes: NotesService,
  ) {}

  @ApiQuery({ name: 'type', type: String, required: false, description: 'only this vendor', example: 'hubspot' })
  @ApiListResponse(IntegrationKeyResponse)
  @Get() @Permissions(P.IntegrationView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<IntegrationKeyDto>> { return this.integrations.list(q); }

  /** Connects an integration (the collection's create): the same as `POST /integration_keys/manual_install`. */
  @ApiBody({ type: IntegrationInstallBody })
  @ApiCreatedResponse({ type: IntegrationInstallResponseBody, description: 'OAuth vendors: authorizeUrl to open; keys: checked against the vendor, then authorised; the dialer: its token, once' })
  @Post() @Permissions(P.IntegrationView)
  create(@Body() body: unknown): Promise<IntegrationInstallResponse> { return this.integrations.install(body); }

  @ApiOkResponse({ type: [IntegrationOptionResponse], description: 'the vendors, how each connects, and whether this platform can connect it by OAuth' })
  @Get('manual_install') @Permissions(P.IntegrationView)
  options(): IntegrationOptionDto[] { return this.integrations.options_(); }

  @ApiBody({ type: IntegrationInstallBody })
  @ApiCreatedResponse({ type: IntegrationInstallResponseBody, description: 'OAuth vendors: authorizeUrl to open; keys: checked against the vendor, then authorised' })
  @Post('manual_install') @Permissions(P.IntegrationView)
  install(@Body() body: unknown): Promise<IntegrationInstallResponse> { return this.integrations.install(body); }

  @ApiOkResponse({ type: [IntegrationDropdownItemResponse] })
  @Get('dropdown') @Permissions(P.IntegrationView)
  dropdown(): Promise<IntegrationDropdownItemDto[]> { return this.integrations.dropdown(); }

  /** The vendor's OAuth redirect: public (the browser comes from the vendor); the one-time state names the integration. */
  @ApiQuery({ name: 'code', type: String, required: false, example: 'auth-code-from-vendor' })
  @ApiQuery({ name: 'state', type: String, required: true, example: 'q0tZ8xQ2n1' })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'a page that sends the browser to the completion screen (or the connections page with an error)', content: { 'text/html': { schema: { type: 'string', example: '<!doctype html><meta http-equiv="refresh" content="0;url=/complete-integration/hubspot/3f2b8c1e-5d4a-4e6f-9a10-7b2c3d4e5f60">' } } } })
  @Get('oauth_callback') @Public() @Header('Content-Type', 'text/html; charset=utf-8') @Header('Cache-Control', 'no-store') @Header('Referrer-Policy', 'no-referrer')
  async callback(@Query() q: Record<string, unknown>): Promise<string> {
    const url = escapeHtml(await this.integrations.oauthCallback(q));
    return `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${url}"><title>Integration</title><p><a href="${url}">Continue</a></p>`;
  }

  /** The dialer calls this (its integration token, no user session): the answer's URL opens the conversation in one click. */
  @ApiHeader({ name: 'X-Integration-Token', required: true, description: 'the dialer integration token answered when the dialer was installed' })
  @ApiBody({ type: DialerConversationBody })
  @ApiCreatedResponse({ type: DialerConversationResponseBody })
  @Post('dialer/conversation') @Public() @HttpCode(201)
  dialerConversation(@Headers('x-integration-token') token: string | undefined, @Body() body: unknown): Promise<DialerConversationResponse> { return this.dialer.conversation(token, body); }

  @ApiOkResponse({ type: DialerContactResponse, description: 'the caller a dialer contact key names (the inbox opens a new conversation with it)' })
  @Get('dialer_contacts/:contactKey') @Permissions(P.InboxNewConversation)
  dialerContact(@Param('contactKey') contactKey: string): Promise<DialerContactDto> { return this.dialer.contact(contactKey); }

  @ApiQuery({ name: 'phone', type: String, required: true, description: 'the conversation\'s phone number', example: '+447911123456' })
  @ApiOkResponse({ type: [IntegrationContactResponse], description: 'the CRM contacts with this number, across the account\'s integrations' })
  @Get('contact_lookup') @Permissions(P.InboxView)
  lookup(@Query('phone') phone: unknown): Promise<IntegrationContactDto[]> { return this.dialer.lookup(phone); }

  @ApiOkResponse({ type: IntegrationKeyResponse })
  @Get(':key') @Permissions(P.IntegrationView)
  get(@Param('key') key: string): Promise<IntegrationKeyDto> { return this.integrations.get(key); }

  @ApiOkResponse({ type: [IntegrationContactFieldResponse] })
  @Get(':key/contact_fields') @Permissions(P.IntegrationView)
  contactFields(@Param('key') key: string): Promise<IntegrationContactFieldDto[]> { return this.integrations.contactFields(key); }

  @ApiOkResponse({ type: [IntegrationContactFilterResponse] })
  @Get(':key/contact_filters') @Permissions(P.IntegrationView)
  contactFilters(@Param('key') key: string): Promise<IntegrationContactFilterDto[]> { return this.integrations.contactFilters(key); }

  @ApiOkResponse({ type: SyncProgressResponse, description: 'sync progress as a list of steps, each with its bar' })
  @Get(':key/sync') @Permissions(P.IntegrationView)
  sync(@Param('key') key: string): Promise<SyncProgressDto> { return this.integrations.syncProgress(key); }

  /** A note on the CRM contact(s) a conversation is with (docs/decisions/0063, "Notes to the CRM"). */
  @ApiBody({ type: IntegrationNoteBody })
  @ApiCreatedResponse({ type: IntegrationNoteResponse, description: 'the note is on each CRM contact of this integration with that id or number; 404 when the integration has none' })
  @Post(':key/notes') @Permissions(P.InboxView) @HttpCode(201)
  note(@Param('key') key: string, @Body() body: unknown): Promise<IntegrationNoteDto> { return this.notes.push(key, body); }

  @ApiBody({ type: IntegrationUpdateBody })
  @ApiOkResponse({ type: IntegrationKeyResponse, description: 'renamed, or its key replaced after the vendor accepted the new one; a refused call changes nothing' })
  @Put(':key') @Permissions(P.IntegrationView)
  update(@Param('key') key: string, @Body() body: unknown): Promise<IntegrationKeyDto> { return this.integrations.update(key, body); }

  @Delete(':key') @Permissions(P.IntegrationView) @HttpCode(204)
  remove(@Param('key') key: string): Promise<void> { return this.integrations.remove(key); }
}

@ApiTags('integrations')
@ApiBearerAuth()
@Controller('integration_config')
export class IntegrationConfigController {
  constructor(private readonly integrations: IntegrationsService) {}

  @ApiOkResponse({ type: IntegrationConfigResponseBody })
  @Get(':key') @Permissions(P.IntegrationView)
  async get(@Param('key') key: string): Promise<IntegrationConfigResponse> { return { status: 'success', data: await this.integrations.config(key) }; }

  @ApiBody({ type: IntegrationConfigBody })
  @ApiOkResponse({ type: IntegrationConfigResponseBody })
  @Post(':key') @Permissions(P.IntegrationView) @HttpCode(200)
  async save(@Param('key') key: string, @Body() body: unknown): Promise<IntegrationConfigResponse> { return { status: 'success', data: await this.integrations.saveConfig(key, body) }; }

  @ApiOkResponse({ type: IntegrationConfigResponseBody, description: 'the import starts: users, then contacts; progress in data.sync' })
  @Get(':key/start') @Permissions(P.IntegrationView)
  async start(@Param('key') key: string): Promise<IntegrationConfigResponse> { return { status: 'success', data: await this.integrations.start(key) }; }
}
