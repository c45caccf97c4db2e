/**
 * The inbox screen's state and the rules of spec 4 ("Inbox"), as pure functions: which conversations a filter shows,
 * the reply blocks, how a live event changes the open screens, and how a timeline is laid out (day separators, the
 * unread group). The React screens only render what these return, so the rules are tested without a browser.
 */
import { WHATSAPP_WINDOW_MS } from './constants';
import { channelOf } from './format';
import type { ConversationDto, ConversationFilter, ConversationStatus, LiveEnvelope, SendStatus, TimelineEventDto } from './types';

export type ReplyBlock = 'noConversation' | 'noStream' | 'tempConversation' | 'awaitingReply' | 'passed24Hours';

/** The list's filter: one of the named ones, or a status or a team with its value. */
export type ListFilter = { kind: ConversationFilter } | { kind: 'status'; value: ConversationStatus } | { kind: 'team'; value: number };

export const isWhatsApp = (c: Pick<ConversationDto, 'stream_type' | 'channel'>) => channelOf(c.stream_type, c.channel) === 'whatsapp';

const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : NaN);

/**
 * Spec 4 reply blocks, in order: no conversation; no stream; a WhatsApp temporary conversation; a WhatsApp
 * conversation with outgoing but no incoming messages (awaiting the customer's reply); a WhatsApp conversation whose
 * window passed: more than 24 hours since the customer last wrote, or, before any reply, since the start-conversation
 * event or the start time. Otherwise replying is allowed (null). The server refuses the same (409
 * INBOX_REPLY_BLOCKED); the times come from the conversation, and from the loaded timeline when it knows later ones.
 */
export function replyBlock(c: ConversationDto | null | undefined, events: TimelineEventDto[], now: number): ReplyBlock | null {
  if (!c) return 'noConversation';
  if (!c.stream_uuid) return 'noStream';
  if (!isWhatsApp(c)) return null;
  if (c.temp) return 'tempConversation';
  const latest = (types: string[], known: string | null | undefined) =>
    Math.max(...[known, ...events.filter((e) => types.includes(e.event_type)).map((e) => e.message_time)].map(time).filter((t) => !Number.isNaN(t)), -Infinity);
  const lastIncoming = latest(['incoming_message'], c.last_incoming_time);
  const lastOutgoing = latest(['outgoing_message', 'start_conversation'], c.last_outgoing_time);
  const started = latest(['start_conversation'], c.start_conversation_time);
  if (!Number.isFinite(lastIncoming) && Number.isFinite(lastOutgoing)) return 'awaitingReply';
  const from = Number.isFinite(lastIncoming) ? lastIncoming : Number.isFinite(started) ? started : time(c.start_time);
  if (!Number.isNaN(from) && now - from > WHATSAPP_WINDOW_MS) return 'passed24Hours';
  return null;
}

/** Whether a conversation belongs in the list under `filter` for the agent `me` (their user id). */
export function matchesFilter(c: ConversationDto, filter: ListFilter, me: number): boolean {
  switch (filter.kind) {
    case 'all':
      return true;
    case 'active':
    case 'unanswered':
    case 'closed':
      return c.conversation_status === filter.kind;
    case 'my_closed':
      return c.conversation_status === 'closed' && c.metadata.agent.includes(me);
    case 'assigned_to_me':
      return c.metadata.agent.includes(me);
    case 'status':
      return c.conversation_status === filter.value;
    case 'team':
      return c.metadata.team.includes(filter.value);
  }
}

/** The query parameters of GET /inbox/conversations for a filter. */
export function filterQuery(filter: ListFilter): Record<string, string | number> {
  if (filter.kind === 'status') return { filter: 'all', status: filter.value };
  if (filter.kind === 'team') return { filter: 'all', team: filter.value };
  return { filter: filter.kind };
}

/** Newest activity first; equal times by uuid so the order is stable. */
export const byActivity = (a: ConversationDto, b: ConversationDto) => time(b.last_updated) - time(a.last_updated) || (a.conversation_uuid < b.conversation_uuid ? -1 : 1);

/** Events in time order, each once (by event uuid); a later copy of an event replaces the earlier one. */
export function mergeEvents(current: TimelineEventDto[], incoming: TimelineEventDto[]): TimelineEventDto[] {
  const byId = new Map<string, TimelineEventDto>();
  for (const e of current) byId.set(eventKey(e), e);
  for (const e of incoming) byId.set(eventKey(e), { ...byId.get(eventKey(e)), ...e });
  return [...byId.values()].sort((a, b) => time(a.message_time) - time(b.message_time) || (eventKey(a) < eventKey(b) ? -1 : 1));
}

export const eventKey = (e: Pick<TimelineEventDto, 'event_uuid' | 'message_uuid'>) => e.event_uuid || `m:${e.message_uuid}`;

const FINAL_DELIVERY = new Set<SendStatus>(['delivered', 'failed', 'read']);

/** Spec 4: a delivery update merges into the message unless it is already delivered or failed (a read stays read). */
export function mergeDelivery(e: TimelineEventDto, status: SendStatus): TimelineEventDto {
  if (e.send_status && FINAL_DELIVERY.has(e.send_status) && !(status === 'read' && e.send_status === 'delivered')) return e;
  return { ...e, send_status: status };
}

export interface InboxState {
  filter: ListFilter;
  me: number;
  conversations: ConversationDto[];
  /** Totals per named filter and per status (the list's tab counts). */
  totals: Partial<Record<ConversationFilter, number>>;
  /** Where the server stops counting the totals no counter keeps (the list's `totals_cap`); unset: INBOX_TOTALS_CAP. */
  totalsCap?: number;
  activeUuid: string | null;
  timeline: TimelineEventDto[];
}

export const emptyState = (me: number, filter: ListFilter = { kind: 'all' }): InboxState => ({ filter, me, conversations: [], totals: {}, activeUuid: null, timeline: [] });

/**
 * A changed conversation (a snapshot from the server) in the list: replaced in place or added, then re-sorted by
 * activity; dropped when it no longer matches the filter, unless it is the open one. The filter totals are not
 * adjusted here: counting locally drifts (an event heard through two rooms, a conversation outside the loaded page or
 * the filter); the store asks the server for them after live events (`TOTALS_EVENTS`).
 */
export function upsertConversation(s: InboxState, c: ConversationDto): InboxState {
  const before = s.conversations.find((x) => x.conversation_uuid === c.conversation_uuid);
  const merged: ConversationDto = before ? { ...before, ...c, metadata: c.metadata ?? before.metadata } : { ...c, just_added: true };
  if (merged.conversation_uuid === s.activeUuid) merged.unread = 0;
  const rest = s.conversations.filter((x) => x.conversation_uuid !== c.conversation_uuid);
  const keep = matchesFilter(merged, s.filter, s.me) || merged.conversation_uuid === s.activeUuid;
  return { ...s, conversations: keep ? [...rest, merged].sort(byActivity) : rest };
}

/** Adds an event to the open timeline; an incoming message in the open conversation is read at once (spec 4). */
function addToTimeline(s: InboxState, e: TimelineEventDto): InboxState {
  if (e.conversation_uuid !== s.activeUuid) return s;
  const m = e.event_type === 'incoming_message' && !e.read_at ? { ...e, read_at: new Date().toISOString() } : e;
  return { ...s, timeline: mergeEvents(s.timeline, [m]) };
}

/** Live events after which the filter totals are asked of the server again (debounced by the store). */
export const TOTALS_EVENTS: ReadonlySet<string> = new Set(['incoming_message', 'status_change', 'start_conversation', 'metadata_change_add', 'metadata_change_remove', 'metadata_update', 'space_statistics']);

/** Spec 4 "Realtime events", applied to the list and the open timeline. Unknown or foreign events change nothing. */
export function applyLive(s: InboxState, env: LiveEnvelope): InboxState {
  switch (env.event) {
    case 'space_statistics':
      // the whole space's totals, not the caller's view (an agent's teams, "my" filters): the store refreshes instead
      return s;
    case 'delivery_message': {
      const { conversation_uuid, message } = env.payload;
      if (conversation_uuid !== s.activeUuid || !message) return s;
      const known = s.timeline.find((e) => (message.message_uuid && e.message_uuid === message.message_uuid) || e.event_uuid === message.event_uuid);
      if (known) {
        const merged = message.send_status ? mergeDelivery(known, message.send_status) : known;
        return { ...s, timeline: s.timeline.map((e) => (e === known ? { ...merged, read_at: message.read_at ?? known.read_at, send_error: message.send_error ?? known.send_error } : e)) };
      }
      // an unknown message is added as outgoing
      return { ...s, timeline: mergeEvents(s.timeline, [{ ...message, event_type: message.event_type === 'start_conversation' ? message.event_type : 'outgoing_message' }]) };
    }
    case 'message_read': {
      const { conversation_uuid, message_uuid, read_at, unread } = env.payload;
      let next: InboxState = { ...s, conversations: s.conversations.map((c) => (c.conversation_uuid === conversation_uuid ? { ...c, unread: c.conversation_uuid === s.activeUuid ? 0 : unread } : c)) };
      if (conversation_uuid === s.activeUuid && message_uuid) {
        next = { ...next, timeline: next.timeline.map((e) => (e.message_uuid === message_uuid ? { ...e, read_at, send_status: e.event_type === 'outgoing_message' ? 'read' : e.send_status } : e)) };
      }
      return next;
    }
    case 'incoming_message':
      return addToTimeline(upsertConversation(s, env.payload.conversation), env.payload.message);
    case 'metadata_change_add':
    case 'metadata_change_remove':
    case 'status_change':
    case 'start_conversation':
      return addToTimeline(upsertConversation(s, env.payload.conversation), env.payload.event);
    case 'internal_note':
      return addToTimeline(s, env.payload.event);
    case 'metadata_update':
      return upsertConversation(s, env.payload.conversation);
    default:
      return s;
  }
}

/** Opening a conversation: it becomes the active one, its unread badge clears, the timeline starts empty. */
export function openConversation(s: InboxState, uuid: string | null): InboxState {
  return { ...s, activeUuid: uuid, timeline: [], conversations: s.conversations.map((c) => (c.conversation_uuid === uuid ? { ...c, unread: 0, just_added: false } : c)) };
}

export type TimelineItem =
  | { kind: 'day'; key: string; day: string }
  | { kind: 'unread'; key: string; count: number }
  | { kind: 'event'; key: string; event: TimelineEventDto };

/**
 * The timeline as rendered: a separator before each new local day, and the unread incoming messages grouped apart
 * after an "unread" divider (spec 4) placed before the first of them (as the timeline was when it was opened).
 */
export function layoutTimeline(events: TimelineEventDto[], unreadFrom: string | null, dayOf: (iso: string) => string): TimelineItem[] {
  const out: TimelineItem[] = [];
  let lastDay = '';
  const firstUnread = unreadFrom ? events.findIndex((e) => eventKey(e) === unreadFrom) : -1;
  const unreadCount = firstUnread >= 0 ? events.slice(firstUnread).filter((e) => e.event_type === 'incoming_message').length : 0;
  events.forEach((e, i) => {
    const day = dayOf(e.message_time);
    if (day !== lastDay) {
      out.push({ kind: 'day', key: `day:${day}`, day });
      lastDay = day;
    }
    if (i === firstUnread && unreadCount > 0) out.push({ kind: 'unread', key: 'unread', count: unreadCount });
    out.push({ kind: 'event', key: eventKey(e), event: e });
  });
  return out;
}

/** The first incoming message nobody has read yet: where the unread group starts. */
export function firstUnreadKey(events: TimelineEventDto[]): string | null {
  const e = events.find((x) => x.event_type === 'incoming_message' && !x.read_at);
  return e ? eventKey(e) : null;
}

/** Spec 5: an id longer than 30 characters is a contact key, otherwise a phone. */
export { isContactKey } from '@switchboard/contracts/src/inbox';

/** Fills a canned template's {placeholders} from the conversation (contact name, phone, agent). */
export function fillCanned(text: string, values: Record<string, string | null | undefined>): string {
  return text.replace(/\{\{?\s*([a-z_]+)\s*\}?\}/gi, (whole, k: string) => values[k.toLowerCase()] ?? whole);
}

/** Live sequence bookkeeping for resume: a duplicate (seen seq) is dropped, a gap is reported. */
export function sequenceCheck(last: number | undefined, seq: number): 'apply' | 'duplicate' | 'gap' {
  if (last === undefined) return 'apply';
  if (seq <= last) return 'duplicate';
  if (seq > last + 1) return 'gap';
  return 'apply';
}
