import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { ApiErrors, Permissions } from '@switchboard/platform';
import {
  bodies,
  BulkStatusSchema,
  ContactAnswerSchema,
  ContactSchema,
  ConversationPageSchema,
  ConversationSchema,
  JoinSchema,
  SearchSchema,
  SendResultSchema,
  TimelineEventSchema,
  TimelinePageSchema,
  TotalsSchema,
} from '../http/schemas';
import { ConversationsService } from '../services/conversations.service';
import { JoinService } from '../services/join.service';
import { SendService } from '../services/send.service';
import { In, Ok } from './organisation.controller';

const P = Permission;
type Q = Record<string, unknown>;
const Blocked = () =>
  ApiErrors(
    { status: 409, code: 'INBOX_REPLY_BLOCKED', message: 'a reply block of spec 4: the violation code is noConversation, noStream, tempConversation, awaitingReply or passed24Hours' },
    { status: 403, code: 'NOT_AUTHENTICATED', message: 'the sender is not authenticated (spec 6)' },
  );

@ApiTags('inbox')
@ApiBearerAuth()
@Controller('inbox')
export class ConversationsController {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly sends: SendService,
    private readonly joins: JoinService,
  ) {}

  @Get('conversations') @Permissions(P.InboxView) @Ok(ConversationPageSchema)
  @ApiQuery({ name: 'space', required: true, type: String, example: '1' })
  @ApiQuery({ name: 'filter', required: false, schema: { type: 'string', enum: ['all', 'active', 'unanswered', 'closed', 'my_closed', 'assigned_to_me'], example: 'all' } })
  @ApiQuery({ name: 'status', required: false, schema: { type: 'string', enum: ['active', 'unanswered', 'closed'], example: 'active' } })
  @ApiQuery({ name: 'team', required: false, type: String, example: '3' })
  @ApiQuery({ name: 'cursor', required: false, type: String, description: 'next_cursor of the previous page', example: 'MjAyNi0xMS0yNVQxMDoxNTowMC4wMDBafDQy' })
  list(@Query() q: Q) { return this.conversations.list(q); }

  @Get('conversations/totals') @Permissions(P.InboxView) @Ok(TotalsSchema)
  @ApiQuery({ name: 'space', required: true, type: String, example: '1' })
  @ApiQuery({ name: 'status', required: false, schema: { type: 'string', enum: ['active', 'unanswered', 'closed'], example: 'active' } })
  @ApiQuery({ name: 'team', required: false, type: String, example: '3' })
  totals(@Query() q: Q) { return this.conversations.listTotals(q); }

  @Get('simple_search') @Permissions(P.InboxView) @Ok(SearchSchema)
  @ApiQuery({ name: 'space', required: true, type: String, example: '1' })
  @ApiQuery({ name: 'q', required: true, type: String, description: 'a name, a phone or words of a message', example: 'parcel' })
  search(@Query() q: Q) { return this.conversations.search(q); }

  @Get('conversation/:id') @Permissions(P.InboxView) @Ok(TimelinePageSchema)
  @ApiQuery({ name: 'page', required: false, type: Number, example: 1 })
  @ApiQuery({ name: 'page_size', required: false, type: Number, example: 30 })
  timeline(@Param('id') id: string, @Query() q: Q) { return this.conversations.timeline(id, q); }

  @Get('preview-conversation/:id') @Permissions(P.InboxView) @Ok(TimelinePageSchema)
  preview(@Param('id') id: string) { return this.conversations.preview(id); }

  @Post('metadata/:id') @HttpCode(200) @Permissions(P.InboxView) @In(bodies.metadata) @Ok(ConversationSchema)
  metadata(@Param('id') id: string, @Body() b: unknown) { return this.conversations.setMetadata(id, b); }

  @Post('bulk_set_status') @HttpCode(200) @Permissions(P.InboxView) @In(bodies.bulkStatus) @Ok(BulkStatusSchema)
  bulk(@Body() b: unknown) { return this.conversations.bulkSetStatus(b); }

  @Post('send_internal_note') @HttpCode(200) @Permissions(P.InboxInternalNotes) @In(bodies.note) @Ok(TimelineEventSchema)
  note(@Body() b: unknown) { return this.conversations.addNote(b); }

  @Post('simple_send/:id') @HttpCode(200) @Permissions(P.InboxView) @In(bodies.simpleSend) @Ok(SendResultSchema) @Blocked()
  simpleSend(@Param('id') id: string, @Body() b: unknown) { return this.sends.reply(id, b, false); }

  @Post('simple_send_sp/:id') @HttpCode(200) @Permissions(P.InboxSenderProfile) @In(bodies.simpleSend) @Ok(SendResultSchema) @Blocked()
  simpleSendSp(@Param('id') id: string, @Body() b: unknown) { return this.sends.reply(id, b, true); }

  @Post('template_send/:id') @HttpCode(200) @Permissions(P.InboxNewConversation) @In(bodies.templateSend) @Ok(SendResultSchema) @Blocked()
  templateSend(@Param('id') id: string, @Body() b: unknown) { return this.sends.start(id, b, false); }

  @Post('template_send_sp/:id') @HttpCode(200) @Permissions(P.InboxNewConversation) @In(bodies.templateSend) @Ok(SendResultSchema) @Blocked()
  templateSendSp(@Param('id') id: string, @Body() b: unknown) { return this.sends.start(id, b, true); }

  @Get('contact_conversations/:id') @Permissions(P.InboxView) @Ok(SearchSchema)
  contactConversations(@Param('id') id: string) { return this.conversations.contactConversations(id, 'auto'); }

  @Get('contact_conversations_phone/:id') @Permissions(P.InboxView) @Ok(SearchSchema)
  contactConversationsPhone(@Param('id') id: string) { return this.conversations.contactConversations(id, 'phone'); }

  @Post('contact/get') @HttpCode(200) @Permissions(P.InboxView) @In(bodies.contactGet) @Ok(ContactAnswerSchema)
  contactGet(@Body() b: unknown) { return this.conversations.getContact(b); }

  @Post('contact/add') @HttpCode(200) @Permissions(P.InboxView) @In(bodies.contactWrite) @Ok(ContactSchema)
  contactAdd(@Body() b: unknown) { return this.conversations.addContact(b); }

  @Post('contact/edit') @HttpCode(200) @Permissions(P.InboxView) @In(bodies.contactWrite) @Ok(ContactSchema)
  contactEdit(@Body() b: unknown) { return this.conversations.editContact(b); }

  /** The gateway's `/ws` asks here, with the caller's token, whether a room may be joined and what was missed. */
  @Post('ws/join') @HttpCode(200) @Permissions(P.InboxView) @In(bodies.join) @Ok(JoinSchema)
  join(@Body() b: unknown) { return this.joins.join(b); }
}
