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
export type ListFilter = { kind: ConversationFilter } | { kind: 'status'; value: ConversationStatus } | { kind: 'team'; value: string };

export const isWhatsApp = (c: Pick<ConversationDto, 'stream_type'>) => channelOf(c.stream_type) === 'whatsapp';

const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : NaN);

/**
 * Spec 4 reply blocks, in order: no conversation; no stream; a WhatsApp temporary conversation; a WhatsApp
 * conversation with outgoing but no incoming messages (awaiting the customer's reply); a WhatsApp conversation whose
 * window passed: more than 24 hours since the customer last wrote, or, before any reply, since the start-conversation
 * event or the start time. Otherwise replying is allowed (null). The server enforces the same blocks.
 */
export function replyBlock(c: ConversationDto | null | undefined, events: TimelineEventDto[], now: number): ReplyBlock | null {
  if (!c) return 'noConversation';
  if (!c.stream_uuid) return 'noStream';
  if (!isWhatsApp(c)) return null;
  if (c.temp) return 'tempConversation';
  const incoming = events.filter((e) => e.event_type === 'incoming_message');
  const outgoing = events.some((e) => e.event_type === 'outgoing_message' || e.event_type === 'start_conversation');
  if (incoming.length === 0 && outgoing) return 'awaitingReply';
  const lastIncoming = Math.max(...incoming.map((e) => time(e.message_time)).filter((t) => !Number.isNaN(t)), -Infinity);
  const started = Math.max(...events.filter((e) => e.event_type === 'start_conversation').map((e) => time(e.message_time)).filter((t) => !Number.isNaN(t)), -Infinity);
  const from = Number.isFinite(lastIncoming) ? lastIncoming : Number.isFinite(started) ? started : time(c.start_time);
  if (!Number.isNaN(from) && now - from > WHATSAPP_WINDOW_MS) return 'passed24Hours';
  return null;
}

/** Whether a conversation belongs in the list under `filter` for the agent `me` (their agent IRI or email). */
export function matchesFilter(c: ConversationDto, filter: ListFilter, me: string): boolean {
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
export function filterQuery(filter: ListFilter): Record<string, string> {
  if (filter.kind === 'status' || filter.kind === 'team') return { filter: filter.kind, value: filter.value };
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
  me: string;
  conversations: ConversationDto[];
  /** Totals per named filter and per status (the list's tab counts). */
  totals: Partial<Record<ConversationFilter, number>>;
  activeUuid: string | null;
  timeline: TimelineEventDto[];
}

export const emptyState = (me: string, filter: ListFilter = { kind: 'all' }): InboxState => ({ filter, me, conversations: [], totals: {}, activeUuid: null, timeline: [] });

function adjustTotals(totals: InboxState['totals'], before: ConversationDto | undefined, after: ConversationDto, me: string): InboxState['totals'] {
  const out = { ...totals };
  const bump = (k: ConversationFilter, d: number) => {
    if (out[k] !== undefined) out[k] = Math.max(0, (out[k] ?? 0) + d);
  };
  for (const k of ['active', 'unanswered', 'closed', 'my_closed', 'assigned_to_me'] as const) {
    const was = before ? matchesFilter(before, { kind: k }, me) : false;
    const is = matchesFilter(after, { kind: k }, me);
    if (was !== is) bump(k, is ? 1 : -1);
  }
  if (!before) bump('all', 1);
  return out;
}

/**
 * A changed conversation (a snapshot from the server) in the list: replaced in place or added, then re-sorted by
 * activity; dropped when it no longer matches the filter, unless it is the open one. Totals follow status changes
 * (+1 and -1 for the filters it enters and leaves; "all" only counts new conversations).
 */
export function upsertConversation(s: InboxState, c: ConversationDto): InboxState {
  const before = s.conversations.find((x) => x.conversation_uuid === c.conversation_uuid);
  const merged: ConversationDto = before ? { ...before, ...c, metadata: c.metadata ?? before.metadata } : { ...c, just_added: true };
  if (merged.conversation_uuid === s.activeUuid) merged.unread = 0;
  const rest = s.conversations.filter((x) => x.conversation_uuid !== c.conversation_uuid);
  const keep = matchesFilter(merged, s.filter, s.me) || merged.conversation_uuid === s.activeUuid;
  return { ...s, totals: adjustTotals(s.totals, before, merged, s.me), conversations: keep ? [...rest, merged].sort(byActivity) : rest };
}

/** Spec 4 "Realtime events", applied to the list and the open timeline. Unknown or foreign events change nothing. */
export function applyLive(s: InboxState, env: LiveEnvelope): InboxState {
  const d = env.data;
  const uuid = d.conversation?.conversation_uuid ?? d.message?.conversation_uuid ?? d.conversation_uuid;
  const active = !!uuid && uuid === s.activeUuid;
  let next = s;
  switch (env.event) {
    case 'space_statistics':
      return d.statistics ? { ...s, totals: { ...s.totals, ...d.statistics } } : s;
    case 'delivery_message': {
      if (!active || !d.message_uuid || !d.send_status) return d.conversation ? upsertConversation(s, d.conversation) : s;
      const known = s.timeline.find((e) => e.message_uuid === d.message_uuid);
      if (known) return { ...s, timeline: s.timeline.map((e) => (e === known ? mergeDelivery(e, d.send_status as SendStatus) : e)) };
      // an unknown message is added as outgoing
      if (d.message) return { ...s, timeline: mergeEvents(s.timeline, [{ ...d.message, event_type: 'outgoing_message', send_status: d.send_status }]) };
      return s;
    }
    case 'message_read': {
      if (!active || !d.message_uuid) return s;
      return { ...s, timeline: s.timeline.map((e) => (e.message_uuid === d.message_uuid ? { ...e, read_at: d.read_at ?? new Date().toISOString(), send_status: e.event_type === 'outgoing_message' ? 'read' : e.send_status } : e)) };
    }
    default: {
      if (d.conversation) next = upsertConversation(next, d.conversation);
      if (active && d.message) {
        // incoming messages in the open conversation are read at once
        const m = d.message.event_type === 'incoming_message' && !d.message.read_at ? { ...d.message, read_at: new Date().toISOString() } : d.message;
        next = { ...next, timeline: mergeEvents(next.timeline, [m]) };
      }
      return next;
    }
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
export const isContactKey = (id: string) => id.length > 30;

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
