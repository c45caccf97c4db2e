/**
 * The inbox API's shapes, from their one source (libs/contracts/src/inbox.ts), under the names the console uses.
 * Imported by file: the contracts index pulls in server code.
 */
import type {
  ConversationFilterValue,
  ConversationStatusValue,
  InboxAgent,
  InboxCannedTemplate,
  InboxContact as ContractContact,
  InboxConversation,
  InboxConversationGoal,
  InboxConversationTag,
  InboxEventTypeValue,
  InboxSendStatusValue,
  InboxSenderProfile,
  InboxSpace,
  InboxTeam,
  InboxTimelineEvent,
  InboxWsEventValue,
  InboxWsPayloads,
  MediaKindValue,
  SwitchSpaceAnswer,
} from '@switchboard/contracts/src/inbox';

export { CONVERSATION_FILTERS, CONVERSATION_STATUSES, INBOX_TOTALS_CAP, MEDIA_KINDS, MEDIA_MAX_BYTES, STILL_LOADING, INBOX_REPLY_BLOCKED, inboxRoom } from '@switchboard/contracts/src/inbox';
export type {
  ConversationPage,
  ConversationTotals,
  ReplyBlockValue,
  SendResult,
  SimpleSearchResult,
  TimelinePage,
  ConversationMetadata,
  TemplateSendBody,
  InboxMediaInfo,
  InboxWsServerMessage,
  InboxCountersReport,
  InboxMessagesReportRow,
  InboxPerStatusRow,
  InboxPerChannelRow,
  InboxStatusPerTagRow,
  InboxTeamPerformanceRow,
  InboxAgentPerformanceRow,
  InboxIncomingRouting,
} from '@switchboard/contracts/src/inbox';

export type ConversationStatus = ConversationStatusValue;
export type ConversationFilter = ConversationFilterValue;
export type ConversationDto = InboxConversation;
export type TimelineEventDto = InboxTimelineEvent;
export type TimelineEventType = InboxEventTypeValue;
export type SendStatus = InboxSendStatusValue;
export type MediaKind = MediaKindValue;
export type Space = InboxSpace;
export type Team = InboxTeam;
export type Agent = InboxAgent;
export type ConversationTag = InboxConversationTag;
export type SenderProfile = InboxSenderProfile;
export type CannedTemplate = InboxCannedTemplate;
export type ConversationGoal = InboxConversationGoal;
export type SpaceSwitch = SwitchSpaceAnswer;
export type InboxContact = ContractContact;
export type LiveEventName = InboxWsEventValue;

/** One event from the websocket as the store applies it: its name, room, sequence and payload. */
export type LiveEnvelope = { [K in InboxWsEventValue]: { event: K; room: string; seq: number; payload: InboxWsPayloads[K] } }[InboxWsEventValue];
