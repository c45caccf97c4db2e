import {
  CONVERSATION_TAG_NAME_MAX,
  INBOX_CONVERSATION_PAGE_SIZE,
  INBOX_STILL_LOADING_RETRIES,
  INBOX_STILL_LOADING_RETRY_MS,
  INBOX_TIMELINE_PAGE_SIZE,
  WHATSAPP_REPLY_WINDOW_MS,
} from '@switchboard/contracts/src/inbox';
import { Permission } from '@switchboard/contracts/src/permissions';

/** Business constants of spec 9 and 4 the inbox screens use. */
export const CONVERSATION_PAGE = INBOX_CONVERSATION_PAGE_SIZE;
export const MESSAGE_PAGE = INBOX_TIMELINE_PAGE_SIZE;
/** Spec 4 and 9: a "still_loading" answer is retried up to 5 times, 3 s apart, then the error shows. */
export const STILL_LOADING_RETRIES = INBOX_STILL_LOADING_RETRIES;
export const STILL_LOADING_RETRY_MS = INBOX_STILL_LOADING_RETRY_MS;
/** Spec 9: the WhatsApp reply window. */
export const WHATSAPP_WINDOW_MS = WHATSAPP_REPLY_WINDOW_MS;
/** Spec 4: the new-conversation lookup is retried 5 times every 1.5 s. */
export const NEW_CONVERSATION_RETRIES = 5;
export const NEW_CONVERSATION_RETRY_MS = 1500;
/** Spec 4: the live queue is drained every 50 ms, at most 1000 waiting (overflow drops). */
export const LIVE_DRAIN_MS = 50;
export const LIVE_QUEUE_MAX = 1000;
/** Reconnect backoff of the inbox websocket: 0.5 s doubling to 15 s, with jitter. */
export const RECONNECT_MIN_MS = 500;
export const RECONNECT_MAX_MS = 15_000;
/** Spec 5: a conversation tag name has at most 64 characters. */
export const TAG_NAME_MAX = CONVERSATION_TAG_NAME_MAX;
/** Spec 9: canned templates and dropdowns load 2000 per page. */
export const SETTINGS_PER_PAGE = 2000;

/** The permission strings of spec 6 the inbox screens check (from their one source). */
export const P = {
  Admin: Permission.InboxAdmin,
  View: Permission.InboxView,
  ShowPhone: Permission.InboxShowPhone,
  Assign: Permission.InboxAssign,
  NewConversation: Permission.InboxNewConversation,
  TeamView: Permission.InboxTeamView,
  AssignTags: Permission.InboxAssignTags,
  InternalNotes: Permission.InboxInternalNotes,
  AgentStatistics: Permission.InboxAgentStatistics,
  ManagerSettings: Permission.InboxManagerSettings,
  SenderProfile: Permission.InboxSenderProfile,
  IncomingRouting: Permission.InboxIncomingRouting,
  ConversationTags: Permission.InboxConversationTags,
  TeamManagement: Permission.InboxTeamManagement,
  CannedTemplates: Permission.InboxCannedTemplates,
  Statistics: Permission.InboxStatistics,
  ConversationGoals: Permission.InboxConversationGoals,
  ApiKeyView: Permission.ApiKeyView,
} as const;
