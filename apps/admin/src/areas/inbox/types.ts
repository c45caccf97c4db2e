/**
 * The inbox API's shapes as the console uses them. PROVISIONAL: until the inbox service's contract
 * (libs/contracts/src/inbox.ts) is on main these follow spec section 3 field for field; they are replaced by
 * re-exports of the contract as soon as it lands.
 */

export type ConversationStatus = 'active' | 'closed' | 'unanswered';
export const CONVERSATION_STATUSES: readonly ConversationStatus[] = ['active', 'unanswered', 'closed'];

export interface ConversationMetadata {
  team: string[];
  agent: string[];
  tags: string[];
}

/** Spec 3 "Conversation". */
export interface ConversationDto {
  conversation_uuid: string;
  conversation_status: ConversationStatus;
  unread: number;
  temp: boolean;
  stream_uuid: string | null;
  stream_type: string | null;
  start_time: string;
  metadata: ConversationMetadata;
  last_message: string | null;
  last_message_type: string | null;
  last_updated: string;
  account_phone_number: string | null;
  contact_phone_number: string | null;
  contact_phone_key: string | null;
  contact_name: string | null;
  just_added?: boolean;
  isUpdated?: boolean;
  isDisabled?: boolean;
}

export type TimelineEventType =
  | 'incoming_message'
  | 'outgoing_message'
  | 'preview_message'
  | 'set_tag'
  | 'assign_team'
  | 'assign_agent'
  | 'change_state'
  | 'start_conversation'
  | 'internal_note'
  | 'call_permission';

export type SendStatus = 'sending' | 'sent' | 'failed' | 'delivered' | 'undelivered' | 'read' | 'failedNotAuth';

export interface MessageContent {
  body?: string;
  media_id?: string;
  media_type?: MediaKind;
  file_name?: string;
  caption?: string;
}

/** Spec 3 "Message/event". */
export interface TimelineEventDto {
  message_uuid: string | null;
  event_uuid: string;
  conversation_uuid: string;
  event_type: TimelineEventType;
  message_time: string;
  read_at: string | null;
  send_status: SendStatus | null;
  actor: string | null;
  content: MessageContent | null;
  event_data: {
    added_tags?: string[];
    removed_tags?: string[];
    new_team?: string | null;
    new_agent?: string | null;
    state?: ConversationStatus;
    template_name?: string;
    note?: string;
    error?: string;
  } | null;
  source: string | null;
  destination: string | null;
  message_type: string | null;
}

export type MediaKind = 'image' | 'video' | 'document' | 'audio' | 'sticker' | 'contact' | 'location';
export const MEDIA_KINDS: readonly MediaKind[] = ['image', 'video', 'document', 'audio', 'sticker', 'contact', 'location'];

export const CONVERSATION_FILTERS = ['all', 'active', 'unanswered', 'closed', 'my_closed', 'assigned_to_me'] as const;
export type ConversationFilter = (typeof CONVERSATION_FILTERS)[number];

export interface ConversationPage {
  items: ConversationDto[];
  total: number;
  /** Totals per filter (all, active, unanswered, closed, my_closed, assigned_to_me). */
  totals: Partial<Record<ConversationFilter, number>>;
  /** The keyset cursor of the next page; null on the last page. */
  next: string | null;
}

export interface TimelinePage {
  items: TimelineEventDto[];
  /** "still_loading" while the history is being prepared (spec 8). */
  message?: string;
}

export interface Space {
  id: number;
  key: string;
  name: string;
  description: string | null;
  settings: { configured: boolean; configuredRequired: boolean };
  teams: string[];
}
export interface Team {
  id: number;
  key: string;
  name: string;
  description: string | null;
  agents: string[];
  space: string;
}
export interface Agent {
  id: number;
  firstname: string;
  lastname: string;
  email: string;
  userRoles: string[];
  teams: string[];
}
export interface ConversationTag {
  id: number;
  name: string;
  key: string;
  space: string;
}
export interface SenderProfile {
  id: number;
  name: string;
  stream: string;
  senders: string[];
  space: string;
}
export interface CannedTemplate {
  id: number;
  templateKey: string;
  name: string;
  space: string;
  text: string;
}
export interface ConversationGoal {
  id: number;
  goalKey: string;
  name: string;
  text: string;
  teams: string[];
}

/** POST /inbox/space answer (spec 3 "switching space"). */
export interface SpaceSwitch {
  space: Space;
  teams: Team[];
  agents: Agent[];
  sender_profiles: SenderProfile[];
  conversation_tags: ConversationTag[];
  canned_templates: CannedTemplate[];
  conversation_goals: ConversationGoal[];
  room: string;
  update_permissions: string[];
}

export interface SendResult {
  code: 'OK' | 'SENT_FAILED' | 'NOT_AUTHENTICATED';
  error?: string;
  event?: TimelineEventDto;
}

export interface InboxContact {
  id?: number;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  email: string | null;
  contactKey?: string | null;
}

export type LiveEventName =
  | 'incoming_message'
  | 'delivery_message'
  | 'message_read'
  | 'metadata_change_add'
  | 'metadata_change_remove'
  | 'internal_note'
  | 'metadata_update'
  | 'status_change'
  | 'start_conversation'
  | 'space_statistics';

/** One event on the inbox websocket: its name, the room, a per-room sequence for resume, and the payload. */
export interface LiveEnvelope {
  event: LiveEventName;
  room: string;
  seq: number;
  data: {
    conversation?: ConversationDto;
    message?: TimelineEventDto;
    conversation_uuid?: string;
    message_uuid?: string;
    send_status?: SendStatus;
    read_at?: string;
    statistics?: Partial<Record<ConversationFilter, number>>;
  };
}
