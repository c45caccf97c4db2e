/**
 * The shared inbox's API types (spec sections 3, 4, 7; docs/decisions/0035-inbox.md): what the console's three-pane
 * views send and receive over HTTP (`/api/inbox/...`, the organisation lists) and over the inbox websocket (`/ws`).
 * Plain types and constants only (no Nest, no zod): the admin builds against them.
 *
 * Naming follows the spec's wire names (snake_case for the inbox calls, camelCase where the spec's entities are
 * camelCase: templateKey, goalKey, ipAcl, configuredRequired). Ids of organisation rows are numbers; relations may
 * be sent as IRIs (`/api/teams/3`) or as the bare id, and are answered as IRIs where the spec says so (a space's teams).
 */

// ---------------------------------------------------------------------------------------------------------------
// Conversations
// ---------------------------------------------------------------------------------------------------------------

/** Spec 3: conversation_status. */
export const ConversationStatus = { Active: 'active', Unanswered: 'unanswered', Closed: 'closed' } as const;
export type ConversationStatusValue = (typeof ConversationStatus)[keyof typeof ConversationStatus];
export const CONVERSATION_STATUSES: readonly ConversationStatusValue[] = ['active', 'unanswered', 'closed'];

/**
 * Status transitions (docs/decisions/0035-inbox.md):
 * - a contact's message: any status -> unanswered (a closed conversation reopens);
 * - an agent's reply or a new conversation's first message: -> active;
 * - an agent sets a status by hand (`bulk_set_status`, the status menu): any -> any of the three.
 */
export const CONVERSATION_STATUS_TRANSITIONS: Readonly<Record<ConversationStatusValue, readonly ConversationStatusValue[]>> = {
  active: ['unanswered', 'closed'],
  unanswered: ['active', 'closed'],
  closed: ['active', 'unanswered'],
};

/** Spec 4: the list filters. `status` and `team` are query parameters that narrow any of them. */
export const ConversationFilter = {
  All: 'all',
  Active: 'active',
  Unanswered: 'unanswered',
  Closed: 'closed',
  MyClosed: 'my_closed',
  AssignedToMe: 'assigned_to_me',
} as const;
export type ConversationFilterValue = (typeof ConversationFilter)[keyof typeof ConversationFilter];
export const CONVERSATION_FILTERS: readonly ConversationFilterValue[] = ['all', 'active', 'unanswered', 'closed', 'my_closed', 'assigned_to_me'];

/** Spec 9: a conversation page holds 15, a timeline page 30. */
export const INBOX_CONVERSATION_PAGE_SIZE = 15;
export const INBOX_TIMELINE_PAGE_SIZE = 30;
/** Spec 9: the WhatsApp reply window, 24 hours. */
export const WHATSAPP_REPLY_WINDOW_MS = 86_400_000;
/** Spec 4 and 9: the console retries a `still_loading` timeline 5 times every 3 s. */
export const INBOX_STILL_LOADING_RETRIES = 5;
export const INBOX_STILL_LOADING_RETRY_MS = 3000;
/** Spec 5: a contact id longer than 30 characters is a key, otherwise a phone. */
export const CONTACT_KEY_MIN_LENGTH = 31;
export const isContactKey = (id: string): boolean => id.length > 30;
/** `+4915112345678` -> `+4915*******78`: the contact's number for agents without INBOX_SHOW_PHONE. */
export function maskPhone(p: string): string {
  if (p.length <= 6) return '*'.repeat(p.length);
  return p.slice(0, 5) + '*'.repeat(p.length - 7) + p.slice(-2);
}

/** Spec 5: tag names up to 64 characters. */
export const CONVERSATION_TAG_NAME_MAX = 64;

/** Team, agent (user id) and tag ids of a conversation (spec 3: metadata team[], agent[], tags[]). */
export interface ConversationMetadata {
  team: number[];
  agent: number[];
  tags: number[];
}

/** Spec 3: Conversation. */
export interface InboxConversation {
  conversation_uuid: string;
  conversation_status: ConversationStatusValue;
  /** Incoming messages not read by an agent yet. */
  unread: number;
  /** A WhatsApp conversation started by a template and not answered yet (reply block tempConversation). */
  temp: boolean;
  stream_uuid: string;
  /** libs/contracts StreamType: 4 two-way SMS, 5 WhatsApp, 7 Telegram bot, 8 Telegram private. */
  stream_type: number;
  /** `sms`, `whatsapp`, `telegram`, `telegram_private`. */
  channel: string;
  space_id: number | null;
  start_time: string;
  metadata: ConversationMetadata;
  last_message: string | null;
  last_message_type: string | null;
  last_updated: string;
  /** When the last start-conversation event happened (the WhatsApp 24-hour window's start), or null. */
  start_conversation_time: string | null;
  last_incoming_time: string | null;
  last_outgoing_time: string | null;
  account_phone_number: string;
  /** Masked (`+4915******78`) without INBOX_SHOW_PHONE. */
  contact_phone_number: string;
  contact_phone_key: string | null;
  contact_name: string | null;
  /** Created by the event this answer or websocket message is about. */
  just_added: boolean;
  isUpdated: boolean;
  isDisabled: boolean;
}

/** GET /inbox/conversations query. */
export interface ConversationListQuery {
  space: number;
  filter?: ConversationFilterValue;
  status?: ConversationStatusValue;
  team?: number;
  /** `next_cursor` of the previous page (keyset). */
  cursor?: string;
}

/**
 * Totals per filter for the current space (and team when given). The whole space's all / active / unanswered / closed
 * come from counters and are exact; every other total (a team's, an agent's own view, my_closed, assigned_to_me) is
 * counted only up to one past INBOX_TOTALS_CAP (docs/decisions/0058): a figure above the cap means "more than the cap".
 */
export type ConversationTotals = Record<ConversationFilterValue, number>;

/**
 * Totals not kept by a counter stop counting past this by default (the console shows `1000+`); `INBOX_TOTALS_CAP`
 * sets another, which the list's answer carries as `totals_cap`.
 */
export const INBOX_TOTALS_CAP = 1000;

/** GET /inbox/conversations answer: 15 per page, newest activity first. */
export interface ConversationPage {
  items: InboxConversation[];
  totals: ConversationTotals;
  /** Where the totals without a counter stop counting: a total above it means "more than this" (the console shows `1000+`). */
  totals_cap: number;
  /** Null on the last page. */
  next_cursor: string | null;
}

/** GET /inbox/simple_search?space=&q= answer: conversations whose contact name, phone or message text match. */
export interface SimpleSearchResult {
  items: InboxConversation[];
}

// ---------------------------------------------------------------------------------------------------------------
// The timeline: messages and events
// ---------------------------------------------------------------------------------------------------------------

/** Spec 3: Message/event event types. */
export const InboxEventType = {
  IncomingMessage: 'incoming_message',
  OutgoingMessage: 'outgoing_message',
  PreviewMessage: 'preview_message',
  SetTag: 'set_tag',
  AssignTeam: 'assign_team',
  AssignAgent: 'assign_agent',
  ChangeState: 'change_state',
  StartConversation: 'start_conversation',
  InternalNote: 'internal_note',
  CallPermission: 'call_permission',
} as const;
export type InboxEventTypeValue = (typeof InboxEventType)[keyof typeof InboxEventType];

/** Spec 4: outgoing status of an inbox message (libs/contracts OutgoingStatus). */
export const InboxSendStatus = {
  Sending: 'sending',
  Sent: 'sent',
  Failed: 'failed',
  Delivered: 'delivered',
  Undelivered: 'undelivered',
  Read: 'read',
  FailedNotAuth: 'failedNotAuth',
} as const;
export type InboxSendStatusValue = (typeof InboxSendStatus)[keyof typeof InboxSendStatus];

/** Who made an event: the contact, an agent (user id) or the system (routing, a status from the provider). */
export interface InboxActor {
  type: 'contact' | 'agent' | 'system';
  id: number | null;
  name: string | null;
}

export const MediaKind = {
  Image: 'image',
  Video: 'video',
  Document: 'document',
  Audio: 'audio',
  Sticker: 'sticker',
  Contact: 'contact',
  Location: 'location',
} as const;
export type MediaKindValue = (typeof MediaKind)[keyof typeof MediaKind];
export const MEDIA_KINDS: readonly MediaKindValue[] = ['image', 'video', 'document', 'audio', 'sticker', 'contact', 'location'];
/** Upload limits per kind, in bytes (WhatsApp Cloud API's limits; docs/decisions/0035-inbox.md). */
export const MEDIA_MAX_BYTES: Readonly<Record<MediaKindValue, number>> = {
  image: 5 * 1024 * 1024,
  video: 16 * 1024 * 1024,
  document: 100 * 1024 * 1024,
  audio: 16 * 1024 * 1024,
  sticker: 500 * 1024,
  contact: 256 * 1024,
  location: 64 * 1024,
};

/** GET /media_info/{id} and the `media` of a message's content. The bytes are at GET /stream_media/{id}. */
export interface InboxMediaInfo {
  id: string;
  kind: MediaKindValue;
  mime: string;
  size: number;
  file_name: string | null;
  /** `/api/stream_media/{id}`. */
  url: string;
  /**
   * Inbound media from WhatsApp or Telegram not fetched yet: the first read of `url` fetches it from the provider
   * (through dispatch, which holds the token), checks it and keeps it; `mime` and `size` are the provider's claim
   * until then (empty and 0 when it made none). The id is the inbound message's uuid.
   */
  pending?: boolean;
  /** Why inbound media could not be kept: `mediaGone` (the provider no longer has it), `fileTooLarge`, `invalidMedia`. */
  unavailable?: 'mediaGone' | 'fileTooLarge' | 'invalidMedia' | null;
}

export interface InboxMessageContent {
  body?: string;
  media?: InboxMediaInfo | null;
  /** A WhatsApp template send: its name, language and the placeholders used. */
  template?: { name: string; language?: string | null; placeholders?: Record<string, string> } | null;
  /** Telegram or WhatsApp location and contact cards, as received. */
  location?: { latitude: number; longitude: number; name?: string | null; address?: string | null } | null;
  contacts?: Array<Record<string, unknown>> | null;
}

/** event_data per event type (spec 3). */
export interface InboxEventData {
  added_tags?: number[];
  removed_tags?: number[];
  new_team?: number[];
  new_agent?: number[];
  state?: ConversationStatusValue;
  template_name?: string;
  note?: string;
}

/** Spec 3: Message/event. */
export interface InboxTimelineEvent {
  /** Null for events that are not messages (tags, team, agent, state, notes). */
  message_uuid: string | null;
  event_uuid: string;
  conversation_uuid: string;
  event_type: InboxEventTypeValue;
  message_time: string;
  read_at: string | null;
  send_status: InboxSendStatusValue | null;
  /** The provider's or streams' error for a failed send (spec 8: SENT_FAILED with the item's error). */
  send_error: string | null;
  actor: InboxActor | null;
  content: InboxMessageContent | null;
  event_data: InboxEventData | null;
  source: string | null;
  destination: string | null;
  message_type: string | null;
}

/**
 * GET /inbox/conversation/{uuid}?page=1&page_size=30 answer: the newest 30 first (page 2 the 30 before them). More
 * pages exist when a page holds exactly 30. While the history is being prepared the answer is HTTP 202 with
 * `{ message: 'still_loading' }` (spec 4 and 8): retry.
 */
export interface TimelinePage {
  conversation: InboxConversation;
  items: InboxTimelineEvent[];
}
export const STILL_LOADING = 'still_loading';
export interface StillLoadingAnswer {
  message: typeof STILL_LOADING;
}

/** GET /inbox/preview-conversation/{uuid}: the conversation and its last few events, for hover cards and search. */
export interface ConversationPreview {
  conversation: InboxConversation;
  items: InboxTimelineEvent[];
}

// ---------------------------------------------------------------------------------------------------------------
// Conversation actions
// ---------------------------------------------------------------------------------------------------------------

/** POST /inbox/metadata/{uuid}: the new whole metadata (each list replaces the old one; a missing list stays). */
export interface MetadataUpdateBody {
  metadata: Partial<ConversationMetadata>;
}

/** POST /inbox/bulk_set_status. */
export interface BulkSetStatusBody {
  conversation_uuids: string[];
  status: ConversationStatusValue;
}
/** Conversations keyed by uuid (spec 7), with their new status applied. */
export interface BulkSetStatusAnswer {
  conversations: Record<string, InboxConversation>;
}

/** POST /inbox/send_internal_note. */
export interface InternalNoteBody {
  conversation_uuid: string;
  note: string;
}

/** Spec 4: reasons the console may not reply; the server refuses them too (HTTP 409, `code` INBOX_REPLY_BLOCKED). */
export const ReplyBlock = {
  NoConversation: 'noConversation',
  NoStream: 'noStream',
  TempConversation: 'tempConversation',
  AwaitingReply: 'awaitingReply',
  Passed24Hours: 'passed24Hours',
} as const;
export type ReplyBlockValue = (typeof ReplyBlock)[keyof typeof ReplyBlock];
export const INBOX_REPLY_BLOCKED = 'INBOX_REPLY_BLOCKED';
/**
 * The body of a refused reply: `{ code: 'INBOX_REPLY_BLOCKED', message: 'passed24Hours: ...', status: 409,
 * violations: [{ propertyPath: 'conversation', code: 'passed24Hours', message }] }`.
 */
export interface ReplyBlockedError {
  code: typeof INBOX_REPLY_BLOCKED;
  message: string;
  status: 409;
  violations: [{ propertyPath: 'conversation'; code: ReplyBlockValue; message: string }];
}

/** Spec 8: send result codes. */
export const SendResultCode = { Ok: 'OK', SentFailed: 'SENT_FAILED', NotAuthenticated: 'NOT_AUTHENTICATED' } as const;
export type SendResultCodeValue = (typeof SendResultCode)[keyof typeof SendResultCode];

/** One message to send (spec 7: simple_send takes `messages[0]`). */
export interface SimpleSendMessage {
  /** The text; may be empty when media is attached. */
  text?: string;
  /** An uploaded media id (POST /upload/{type}/{stream}). */
  media_id?: string | null;
}

/** POST /inbox/simple_send/{conversation_uuid}; the `_sp` variant adds `sender_profile` (id or IRI). */
export interface SimpleSendBody {
  messages: SimpleSendMessage[];
  sender_profile?: number | string;
}

/** WhatsApp template buttons (spec 3). */
export const TemplateButtonType = {
  Url: 'URL',
  PhoneNumber: 'PHONE_NUMBER',
  QuickReply: 'QUICK_REPLY',
  Otp: 'OTP',
  VoiceCall: 'VOICE_CALL',
  Flow: 'FLOW',
} as const;

/**
 * POST /inbox/template_send/{stream_uuid} (a new conversation or a template on an existing one) and
 * template_send_sp/{sender_profile_id}: spec 7 "streamUid, phone, sender, template, placeholders, convInfo".
 * For a plain text new conversation (two-way SMS, Telegram) `text` replaces `template`.
 */
export interface TemplateSendBody {
  streamUid?: string;
  phone: string;
  sender?: string | null;
  /** The WhatsApp template's name (and language); absent for a text start. */
  template?: { name: string; language?: string | null } | string | null;
  /** Placeholder values by section and position: `{ body: { '1': 'Ann' }, header: {...}, buttons: { '0': { '1': 'x' } } }`. */
  placeholders?: Record<string, unknown>;
  text?: string;
  convInfo?: { agent?: number | string | null; team?: number | string | null; space?: number | string | null };
}

/** What a send answers (200 for OK, 200 for SENT_FAILED with the item's error, 403 for NOT_AUTHENTICATED). */
export interface SendResult {
  code: SendResultCodeValue;
  conversation_uuid: string | null;
  message_uuid: string | null;
  /** For SENT_FAILED: the spec error code or refusal from streams (`0x31`, `blacklisted`, ...). */
  error: string | null;
  /** The message as it now stands in the timeline. */
  message: InboxTimelineEvent | null;
}

// ---------------------------------------------------------------------------------------------------------------
// Contacts in the inbox
// ---------------------------------------------------------------------------------------------------------------

export interface InboxContact {
  id: number;
  contactKey: string;
  phone: string;
  firstName: string;
  lastName: string;
  email: string;
  extra: Record<string, unknown>;
}
/** POST /inbox/contact/get: by `contactKey` or `contact_phone_number`, in `space`. */
export interface ContactGetBody {
  contact_phone_number?: string;
  contactKey?: string;
  internalId?: number | string;
  space?: number | string;
}
/** POST /inbox/contact/add and /edit (edit names the contact by contactKey or phone). */
export interface ContactWriteBody {
  contactKey?: string;
  phone?: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  extra?: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------------------------
// Organisation (spec 3)
// ---------------------------------------------------------------------------------------------------------------

export interface InboxSpaceSettings {
  configured: boolean;
  configuredRequired: boolean;
}
export interface InboxSpace {
  id: number;
  key: string;
  name: string;
  description: string;
  settings: InboxSpaceSettings;
  /** IRIs: `/api/teams/3`. */
  teams: string[];
}
export interface InboxTeam {
  id: number;
  key: string;
  name: string;
  description: string;
  /** IRIs `/api/agents/12` (user ids). */
  agents: string[];
  /** IRI `/api/spaces/1`. */
  space: string;
  /** Agents (user ids) who manage the team. */
  managers: number[];
}
export interface InboxAgent {
  /** The user id. */
  id: number;
  firstname: string;
  lastname: string;
  email: string;
  /** The inbox role's name first, then the platform role's. */
  userRoles: string[];
  /** Team ids. */
  teams: number[];
}
export interface InboxConversationTag {
  id: number;
  name: string;
  key: string;
  space: string;
}
export interface InboxSenderProfile {
  id: number;
  name: string;
  /** The stream's uuid. */
  stream: string;
  senders: string[];
  space: string;
}
/** The settings list "API keys" is auth's `/api_keys` (name, ipAcl, permissions, active): no inbox copy. */
export interface InboxCannedTemplate {
  id: number;
  templateKey: string;
  name: string;
  space: string;
  text: string;
}
export interface InboxConversationGoal {
  id: number;
  goalKey: string;
  name: string;
  text: string;
  /** IRIs. */
  teams: string[];
  space: string;
}
export interface InboxIncomingRouting {
  id: number;
  name: string;
  /** The stream's uuid. */
  stream: string;
  /** IRI or null (the space without a team). */
  team: string | null;
  /** Our numbers or ids on that stream the routing applies to; empty: all. */
  senders: string[];
  space: string;
}

/** Per-space permission overrides for the current agent (spec 6: empty array or missing means an empty object). */
export type UpdatePermissions = Record<string, boolean>;

/** POST /inbox/space `{ space: id }`: switch the current space (spec 3). */
export interface SwitchSpaceAnswer {
  space: InboxSpace;
  teams: InboxTeam[];
  agents: InboxAgent[];
  sender_profiles: InboxSenderProfile[];
  conversation_tags: InboxConversationTag[];
  canned_templates: InboxCannedTemplate[];
  conversation_goals: InboxConversationGoal[];
  /** The websocket room to join for this space (`space:<id>`). */
  room: string;
  update_permissions: UpdatePermissions;
}

// ---------------------------------------------------------------------------------------------------------------
// The websocket inbox connection (`/ws`)
// ---------------------------------------------------------------------------------------------------------------

/** Spec 4: realtime events. */
export const InboxWsEvent = {
  IncomingMessage: 'incoming_message',
  DeliveryMessage: 'delivery_message',
  MessageRead: 'message_read',
  MetadataChangeAdd: 'metadata_change_add',
  MetadataChangeRemove: 'metadata_change_remove',
  InternalNote: 'internal_note',
  MetadataUpdate: 'metadata_update',
  StatusChange: 'status_change',
  StartConversation: 'start_conversation',
  SpaceStatistics: 'space_statistics',
} as const;
export type InboxWsEventValue = (typeof InboxWsEvent)[keyof typeof InboxWsEvent];

/** Rooms: `account:<id>`, `space:<id>`, `team:<id>`, `agent:<userId>`, `conversation:<uuid>`. */
export type InboxRoomKind = 'account' | 'space' | 'team' | 'agent' | 'conversation';
export const inboxRoom = (kind: InboxRoomKind, id: string | number): string => `${kind}:${id}`;

/** Payloads per event. */
export interface InboxWsPayloads {
  /** A contact's message (and the conversation as it now stands). */
  incoming_message: { conversation: InboxConversation; message: InboxTimelineEvent };
  /** An outgoing message's new status (sent, delivered, failed...), or an agent's new outgoing message. */
  delivery_message: { conversation_uuid: string; message: InboxTimelineEvent };
  /** The contact read an outgoing message (WhatsApp, Telegram), or an agent read the conversation (`unread` 0). */
  message_read: { conversation_uuid: string; message_uuid: string | null; read_at: string; unread: number };
  /** Tags, teams or agents added (the timeline event says which). */
  metadata_change_add: { conversation: InboxConversation; event: InboxTimelineEvent };
  metadata_change_remove: { conversation: InboxConversation; event: InboxTimelineEvent };
  internal_note: { conversation_uuid: string; event: InboxTimelineEvent };
  /** The conversation's metadata as a whole (after any change). */
  metadata_update: { conversation: InboxConversation };
  status_change: { conversation: InboxConversation; event: InboxTimelineEvent; previous_status: ConversationStatusValue };
  start_conversation: { conversation: InboxConversation; event: InboxTimelineEvent };
  /** The space's totals per filter after a change. */
  space_statistics: { space_id: number; totals: ConversationTotals };
}

/** Client -> server. `since`: the last `seq` seen in that room (resume after a reconnect). */
export type InboxWsClientMessage =
  | { type: 'join'; room: string; since?: number }
  | { type: 'leave'; room: string }
  | { type: 'ping' };

/** Server -> client. */
export type InboxWsServerMessage =
  | { type: 'joined'; room: string; seq: number }
  | { type: 'left'; room: string }
  | { type: 'event'; room: string; seq: number; event: InboxWsEventValue; payload: InboxWsPayloads[InboxWsEventValue]; at: string }
  /** `since` fell out of the replay window: reload the room's data, then go on from `seq`. */
  | { type: 'reset'; room: string; seq: number }
  | { type: 'error'; room: string | null; code: 'NO_PERMISSIONS' | 'NOT_FOUND' | 'INVALID' | 'NOT_AUTHENTICATED'; message: string }
  | { type: 'pong' };

/** The token goes in the first message or the query: `/ws?access_token=<jwt>` (browsers cannot set headers on a websocket). */
export const INBOX_WS_PATH = '/ws';

// ---------------------------------------------------------------------------------------------------------------
// Reports (spec 3 Statistics, spec 7)
// ---------------------------------------------------------------------------------------------------------------

export const InboxBoard = { Space: 'space_reports', Team: 'team_reports', Agent: 'agent_reports', My: 'my_reports' } as const;
export type InboxBoardValue = (typeof InboxBoard)[keyof typeof InboxBoard];
export const InboxReport = {
  Counters: 'counters',
  Messages: 'messages',
  ConversationsPerStatus: 'conversations_per_status',
  ConversationsPerChannel: 'conversations_per_channel',
  ConversionStatusesPerChannel: 'conversion_statuses_per_channel',
  CostPerChannel: 'cost_per_channel',
  ConversionStatusesPerTag: 'conversion_statuses_per_tag',
  TeamsPerformanceConversionsSummary: 'teams_performance_conversions_summary',
  AgentsPerformanceSummary: 'agents_performance_summary',
} as const;
export type InboxReportValue = (typeof InboxReport)[keyof typeof InboxReport];

/** GET /inbox/{board}/{space}[/{entity}]/{report}?start=&end=&agents[]=&teams[]= */
export interface InboxReportQuery {
  start?: string;
  end?: string;
  agents?: number[];
  teams?: number[];
}
export interface InboxCountersReport {
  conversations: number;
  /** In the account's currency units. */
  cost: number;
  /** Share of conversations with an incoming message that got an agent's reply, 0..100. */
  response_rate: number;
  outbound: number;
  incoming: number;
}
export interface InboxMessagesReportRow {
  date: string;
  incoming: number;
  outbound: number;
}
export interface InboxPerStatusRow {
  conversation_status: ConversationStatusValue;
  items: number;
}
export interface InboxPerChannelRow {
  stream_uuid: string;
  stream_name: string;
  stream_type: number;
  items: number;
  response_rate: number;
  total_cost: number;
}
export interface InboxStatusPerChannelRow {
  stream_uuid: string;
  stream_name: string;
  stream_type: number;
  conversation_status: ConversationStatusValue;
  items: number;
}
export interface InboxStatusPerTagRow {
  tag: number;
  tag_name: string;
  conversation_status: ConversationStatusValue;
  items: number;
}
export interface InboxTeamPerformanceRow {
  team: number;
  team_name: string;
  conversations: number;
  active: number;
  unanswered: number;
  closed: number;
  response_rate: number;
  /** Median seconds from a contact's message to the agent's answer, null when none. */
  median_response_seconds: number | null;
}
export interface InboxAgentPerformanceRow {
  agent: number;
  agent_name: string;
  conversations: number;
  closed: number;
  outbound: number;
  response_rate: number;
  median_response_seconds: number | null;
}
