import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/** OpenAPI schemas of the inbox's answers and bodies (libs/contracts/src/inbox.ts in OpenAPI), each with its example. */
const str = (example: string, extra: SchemaObject = {}): SchemaObject => ({ type: 'string', example, ...extra });
const int = (example: number, extra: SchemaObject = {}): SchemaObject => ({ type: 'integer', example, ...extra });
const num = (example: number): SchemaObject => ({ type: 'number', example });
const bool = (example: boolean): SchemaObject => ({ type: 'boolean', example });
const nul = (s: SchemaObject): SchemaObject => ({ ...s, nullable: true });
const arr = (items: SchemaObject, example?: unknown[]): SchemaObject => ({ type: 'array', items, ...(example ? { example } : {}) });
export const obj = (properties: Record<string, SchemaObject>, required = Object.keys(properties)): SchemaObject => ({ type: 'object', properties, required });
const map = (values: SchemaObject, example: Record<string, unknown>): SchemaObject => ({ type: 'object', additionalProperties: values, example });
export const list = (items: SchemaObject): SchemaObject => obj({ items: arr(items), total: int(1) });

const UUID = '3f1c2b7e-8f7a-4a55-9d6c-0a4c6b2f9e11';
const TIME = '2026-11-25T10:15:00.000Z';

export const SpaceSchema = obj({
  id: int(1),
  key: str('support'),
  name: str('Support'),
  description: str('Customer care'),
  settings: obj({ configured: bool(true), configuredRequired: bool(false) }),
  teams: arr(str('/api/teams/3')),
});
export const TeamSchema = obj({
  id: int(3),
  key: str('first-line'),
  name: str('First line'),
  description: str(''),
  agents: arr(str('/api/agents/12')),
  space: str('/api/spaces/1'),
  managers: arr(int(12)),
});
export const AgentSchema = obj({ id: int(12), firstname: str('Ann'), lastname: str('Lee'), email: str('ann@example.com'), userRoles: arr(str('Inbox Agent')), teams: arr(int(3)) });
export const TagSchema = obj({ id: int(5), name: str('VIP'), key: str('vip'), space: str('/api/spaces/1') });
export const SenderProfileSchema = obj({ id: int(2), name: str('Main number'), stream: str(UUID), senders: arr(str('+4915112345678')), space: str('/api/spaces/1') });
export const CannedSchema = obj({ id: int(4), templateKey: str('greeting'), name: str('Greeting'), space: str('/api/spaces/1'), text: str('Hello, how can we help?') });
export const GoalSchema = obj({ id: int(6), goalKey: str('upsell'), name: str('Upsell'), text: str('Offer the yearly plan'), teams: arr(str('/api/teams/3')), space: str('/api/spaces/1') });
export const RoutingSchema = obj({ id: int(7), name: str('Two-way DE'), stream: str(UUID), team: nul(str('/api/teams/3')), senders: arr(str('+4915112345678')), space: str('/api/spaces/1') });
export const DropdownSchema = list(obj({ id: int(1), name: str('Support') }));
const Overrides = map(bool(false), { INBOX_ASSIGN: false });

export const SwitchSpaceSchema = obj({
  space: SpaceSchema,
  teams: arr(TeamSchema),
  agents: arr(AgentSchema),
  sender_profiles: arr(SenderProfileSchema),
  conversation_tags: arr(TagSchema),
  canned_templates: arr(CannedSchema),
  conversation_goals: arr(GoalSchema),
  room: str('space:1'),
  update_permissions: Overrides,
});

export const MetadataSchema = obj({ team: arr(int(3)), agent: arr(int(12)), tags: arr(int(5)) });
export const ConversationSchema = obj({
  conversation_uuid: str(UUID),
  conversation_status: str('unanswered', { enum: ['active', 'unanswered', 'closed'] }),
  unread: int(2),
  temp: bool(false),
  stream_uuid: str(UUID),
  stream_type: int(4),
  channel: str('sms'),
  space_id: nul(int(1)),
  start_time: str(TIME),
  metadata: MetadataSchema,
  last_message: nul(str('Is my order on its way?')),
  last_message_type: nul(str('text')),
  last_updated: str(TIME),
  start_conversation_time: nul(str(TIME)),
  last_incoming_time: nul(str(TIME)),
  last_outgoing_time: nul(str(TIME)),
  account_phone_number: str('+4915100000000'),
  contact_phone_number: str('+4915112345678'),
  contact_phone_key: nul(str('c9b1f0a2d4e64f1fa3b8e2d7c6a5b4f3e2d1c0b9')),
  contact_name: nul(str('Max Mustermann')),
  just_added: bool(false),
  isUpdated: bool(false),
  isDisabled: bool(false),
});
const Media = obj({ id: str(UUID), kind: str('image'), mime: str('image/png'), size: int(1024), file_name: nul(str('photo.png')), url: str(`/api/stream_media/${UUID}`) });
export const MediaInfoSchema = Media;
export const TimelineEventSchema = obj({
  message_uuid: nul(str(UUID)),
  event_uuid: str(UUID),
  conversation_uuid: str(UUID),
  event_type: str('incoming_message'),
  message_time: str(TIME),
  read_at: nul(str(TIME)),
  send_status: nul(str('delivered')),
  send_error: nul(str('0x31')),
  actor: nul(obj({ type: str('agent'), id: nul(int(12)), name: nul(str('Ann Lee')) })),
  content: nul({ type: 'object', additionalProperties: true, example: { body: 'Is my order on its way?' } }),
  event_data: nul({ type: 'object', additionalProperties: true, example: { added_tags: [5] } }),
  source: nul(str('+4915112345678')),
  destination: nul(str('+4915100000000')),
  message_type: nul(str('text')),
});
const Totals = obj({ all: int(40), active: int(10), unanswered: int(5), closed: int(25), my_closed: int(3), assigned_to_me: int(4) });
export const TotalsSchema = Totals;
export const ConversationPageSchema = obj({ items: arr(ConversationSchema), totals: Totals, totals_cap: int(1000), next_cursor: nul(str('MjAyNi0xMS0yNVQxMDoxNTowMC4wMDBafDQy')) });
export const TimelinePageSchema = obj({ conversation: ConversationSchema, items: arr(TimelineEventSchema) });
export const StillLoadingSchema = obj({ message: str('still_loading') });
export const SearchSchema = obj({ items: arr(ConversationSchema) });
export const BulkStatusSchema = obj({ conversations: map(ConversationSchema, { [UUID]: { conversation_uuid: UUID, conversation_status: 'closed' } }) });
export const SendResultSchema = obj({
  code: str('OK', { enum: ['OK', 'SENT_FAILED', 'NOT_AUTHENTICATED'] }),
  conversation_uuid: nul(str(UUID)),
  message_uuid: nul(str(UUID)),
  error: nul(str('blacklisted')),
  message: nul(TimelineEventSchema),
});
export const ContactSchema = obj({
  id: int(9),
  contactKey: str('c9b1f0a2d4e64f1fa3b8e2d7c6a5b4f3e2d1c0b9'),
  phone: str('+4915112345678'),
  firstName: str('Max'),
  lastName: str('Mustermann'),
  email: str('max@example.com'),
  extra: { type: 'object', additionalProperties: true, example: { company: 'ACME' } },
});
export const ContactAnswerSchema = obj({ contact: nul(ContactSchema), conversations: arr(ConversationSchema) });
export const JoinSchema = obj({ room: str('space:1'), seq: int(42), reset: bool(false), events: arr(obj({ seq: int(41), event: str('incoming_message'), payload: { type: 'object', additionalProperties: true, example: { conversation: {} } }, at: str(TIME) })) });

// ---- request bodies ----
/** POST /inbox/ai_context/{id} (docs/decisions/0041-generative-ai.md). */
export const GenAiContextSchema = obj({ context: str('ps1:q1w2e3r4t5y6u7i8o9p0', { description: 'sealed; pass it to POST /inbox/respond/{id}' }), expires_at: str(TIME, { format: 'date-time' }) });

export const bodies = {
  genAiContext: obj({ conversation_goal_id: int(6, { description: 'the goal (its id, or its IRI as a string)' }) }),
  space: obj({ name: str('Support'), key: str('support'), description: str('Customer care'), settings: obj({ configured: bool(true), configuredRequired: bool(false) }, []) }, ['name']),
  spaceConfigure: obj({ settings: obj({ configured: bool(true), configuredRequired: bool(false) }, []), update_permissions: map(map(bool(false), { INBOX_ASSIGN: false }), { '12': { INBOX_ASSIGN: false } }) }, []),
  switchSpace: obj({ space: str('/api/spaces/1') }),
  team: obj({ name: str('First line'), key: str('first-line'), description: str(''), space: str('/api/spaces/1'), agents: arr(str('/api/agents/12')), managers: arr(str('/api/agents/12')) }, ['name', 'space']),
  tag: obj({ name: str('VIP', { maxLength: 64 }), space: str('/api/spaces/1') }, ['name', 'space']),
  senderProfile: obj({ name: str('Main number'), stream: str(UUID), senders: arr(str('+4915112345678')), space: str('/api/spaces/1') }, ['name', 'stream', 'space']),
  canned: obj({ name: str('Greeting'), templateKey: str('greeting'), text: str('Hello, how can we help?'), space: str('/api/spaces/1') }),
  goal: obj({ name: str('Upsell'), goalKey: str('upsell'), text: str('Offer the yearly plan'), teams: arr(str('/api/teams/3')), space: str('/api/spaces/1') }, ['name', 'text']),
  routing: obj({ name: str('Two-way DE'), stream: str(UUID), team: nul(str('/api/teams/3')), senders: arr(str('+4915112345678')), space: str('/api/spaces/1') }, ['name', 'stream', 'space']),
  metadata: obj({ metadata: obj({ team: arr(int(3)), agent: arr(int(12)), tags: arr(int(5)) }, []) }),
  bulkStatus: obj({ conversation_uuids: arr(str(UUID)), status: str('closed', { enum: ['active', 'unanswered', 'closed'] }) }),
  note: obj({ conversation_uuid: str(UUID), note: str('Called the customer back') }),
  simpleSend: obj({ messages: arr(obj({ text: str('Your parcel left our warehouse today.'), media_id: nul(str(UUID)) }, [])), sender_profile: str('/api/sender_profiles/2') }, ['messages']),
  templateSend: obj(
    {
      streamUid: str(UUID),
      phone: str('+4915112345678'),
      sender: nul(str('+4915100000000')),
      template: obj({ name: str('order_update'), language: nul(str('en')) }, ['name']),
      placeholders: { type: 'object', additionalProperties: true, example: { body: { '1': 'Max' } } },
      text: str('Hello from ACME'),
      convInfo: obj({ agent: nul(int(12)), team: nul(int(3)), space: nul(int(1)) }, []),
    },
    ['phone'],
  ),
  contactGet: obj({ contact_phone_number: str('+4915112345678'), contactKey: str('c9b1f0a2d4e64f1fa3b8e2d7c6a5b4f3e2d1c0b9'), internalId: int(9), space: int(1) }, []),
  contactWrite: obj({ contactKey: str('c9b1f0a2d4e64f1fa3b8e2d7c6a5b4f3e2d1c0b9'), phone: str('+4915112345678'), firstName: str('Max'), lastName: str('Mustermann'), email: str('max@example.com'), extra: { type: 'object', additionalProperties: true, example: { company: 'ACME' } } }, []),
  join: obj({ room: str('space:1'), since: int(40) }, ['room']),
};
export const OkSchema = obj({ ok: bool(true) });
export { num };
