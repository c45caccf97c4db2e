import { describe, expect, it } from '@jest/globals';
import { applyLive, emptyState, firstUnreadKey, layoutTimeline, mergeEvents, openConversation, replyBlock, sequenceCheck, TOTALS_EVENTS, upsertConversation, type InboxState } from './model';
import { dayKey } from './format';
import type { ConversationDto, LiveEnvelope, TimelineEventDto } from './types';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const HOUR = 3_600_000;
const iso = (t: number) => new Date(t).toISOString();

const conv = (over: Partial<ConversationDto> = {}): ConversationDto => ({
  conversation_uuid: 'c1',
  conversation_status: 'active',
  unread: 0,
  temp: false,
  stream_uuid: 's1',
  stream_type: 5,
  channel: 'whatsapp',
  space_id: 1,
  start_time: iso(NOW - 2 * HOUR),
  start_conversation_time: null,
  last_incoming_time: null,
  last_outgoing_time: null,
  just_added: false,
  isUpdated: false,
  isDisabled: false,
  metadata: { team: [], agent: [], tags: [] },
  last_message: 'hi',
  last_message_type: 'text',
  last_updated: iso(NOW - HOUR),
  account_phone_number: '+100',
  contact_phone_number: '+4915112345678',
  contact_phone_key: null,
  contact_name: 'Ann',
  ...over,
});

let n = 0;
const ev = (type: TimelineEventDto['event_type'], at: number, over: Partial<TimelineEventDto> = {}): TimelineEventDto => ({
  message_uuid: `m${++n}`,
  event_uuid: `e${n}`,
  conversation_uuid: 'c1',
  event_type: type,
  message_time: iso(at),
  read_at: null,
  send_status: null,
  send_error: null,
  actor: null,
  content: { body: `text ${n}` },
  event_data: null,
  source: null,
  destination: null,
  message_type: 'text',
  ...over,
});

describe('reply blocks (spec 4)', () => {
  it('blocks without a conversation or a stream, and lets SMS replies through', () => {
    expect(replyBlock(null, [], NOW)).toBe('noConversation');
    expect(replyBlock(conv({ stream_uuid: '' }), [], NOW)).toBe('noStream');
    expect(replyBlock(conv({ stream_type: 4, channel: 'sms', start_time: iso(NOW - 100 * HOUR) }), [], NOW)).toBeNull();
  });

  it('blocks a temporary WhatsApp conversation and one that awaits the customer’s first reply', () => {
    expect(replyBlock(conv({ temp: true }), [ev('incoming_message', NOW - HOUR)], NOW)).toBe('tempConversation');
    expect(replyBlock(conv(), [ev('start_conversation', NOW - HOUR), ev('outgoing_message', NOW - HOUR)], NOW)).toBe('awaitingReply');
  });

  it('blocks WhatsApp replies more than 24 hours after the customer last wrote, and allows them at 24 hours', () => {
    const last = NOW - 24 * HOUR;
    expect(replyBlock(conv(), [ev('incoming_message', last)], NOW)).toBeNull();
    expect(replyBlock(conv(), [ev('incoming_message', last)], NOW + 1)).toBe('passed24Hours');
    // a fresh customer message reopens the window
    expect(replyBlock(conv(), [ev('incoming_message', last - HOUR), ev('incoming_message', NOW - HOUR)], NOW + 1)).toBeNull();
  });

  it('uses the conversation’s own times when the timeline is not loaded', () => {
    expect(replyBlock(conv({ last_outgoing_time: iso(NOW - HOUR) }), [], NOW)).toBe('awaitingReply');
    expect(replyBlock(conv({ last_incoming_time: iso(NOW - 25 * HOUR), last_outgoing_time: iso(NOW - HOUR) }), [], NOW)).toBe('passed24Hours');
    expect(replyBlock(conv({ last_incoming_time: iso(NOW - 23 * HOUR) }), [], NOW)).toBeNull();
  });

  it('measures from the start time when no message is known', () => {
    expect(replyBlock(conv({ start_time: iso(NOW - 25 * HOUR) }), [], NOW)).toBe('passed24Hours');
    expect(replyBlock(conv({ start_time: iso(NOW - 23 * HOUR) }), [], NOW)).toBeNull();
  });
});

const state = (over: Partial<InboxState> = {}): InboxState => ({ ...emptyState(7), ...over });

describe('the list under a filter (spec 4)', () => {
  it('drops a conversation that leaves the filter and leaves the totals to the server', () => {
    const s = state({ filter: { kind: 'active' }, conversations: [conv()], totals: { all: 5, active: 3, closed: 2, unanswered: 0 } });
    const next = upsertConversation(s, conv({ conversation_status: 'closed' }));
    expect(next.totals).toEqual({ all: 5, active: 3, closed: 2, unanswered: 0 });
    // it left the "active" filter, so it left the list
    expect(next.conversations).toEqual([]);
  });

  it('puts a new conversation first; the same snapshot heard twice changes nothing more', () => {
    const s = state({ conversations: [conv({ conversation_uuid: 'old', last_updated: iso(NOW - 5 * HOUR) })], totals: { all: 1, unanswered: 0 } });
    const fresh = conv({ conversation_uuid: 'new', conversation_status: 'unanswered', last_updated: iso(NOW) });
    const once = upsertConversation(s, fresh);
    expect(once.conversations[0].just_added).toBe(true);
    const next = upsertConversation(once, fresh);
    expect(next.conversations.map((c) => c.conversation_uuid)).toEqual(['new', 'old']);
    expect(next.totals).toEqual({ all: 1, unanswered: 0 });
  });

  it('keeps "mine" to conversations assigned to the agent', () => {
    const s = state({ filter: { kind: 'assigned_to_me' } });
    expect(upsertConversation(s, conv({ metadata: { team: [], agent: [8], tags: [] } })).conversations).toHaveLength(0);
    expect(upsertConversation(s, conv({ metadata: { team: [], agent: [7], tags: [] } })).conversations).toHaveLength(1);
  });

  it('keeps the open conversation in the list even when it leaves the filter, with no unread badge', () => {
    const s = openConversation(state({ filter: { kind: 'unanswered' }, conversations: [conv({ conversation_status: 'unanswered', unread: 2 })] }), 'c1');
    expect(s.conversations[0].unread).toBe(0);
    const next = upsertConversation(s, conv({ conversation_status: 'active', unread: 3 }));
    expect(next.conversations).toHaveLength(1);
    expect(next.conversations[0].unread).toBe(0);
  });
});

const live = <E extends LiveEnvelope['event']>(event: E, payload: Extract<LiveEnvelope, { event: E }>['payload'], seq = 1): LiveEnvelope => ({ event, room: 'space:1', seq, payload }) as LiveEnvelope;

describe('live events (spec 4 realtime events)', () => {
  it('adds an incoming message to the open timeline, read at once, and to the list with its unread count elsewhere', () => {
    const s = openConversation(state({ conversations: [conv(), conv({ conversation_uuid: 'c2' })] }), 'c1');
    const m = ev('incoming_message', NOW);
    const next = applyLive(s, live('incoming_message', { conversation: conv({ last_message: 'new', last_updated: iso(NOW), unread: 1 }), message: m }));
    expect(next.timeline).toHaveLength(1);
    expect(next.timeline[0].read_at).not.toBeNull();
    expect(next.conversations[0]).toMatchObject({ conversation_uuid: 'c1', last_message: 'new', unread: 0 });

    const other = ev('incoming_message', NOW, { conversation_uuid: 'c2' });
    const after = applyLive(next, live('incoming_message', { conversation: conv({ conversation_uuid: 'c2', unread: 1, last_updated: iso(NOW + 1) }), message: other }));
    expect(after.timeline).toHaveLength(1);
    expect(after.conversations[0]).toMatchObject({ conversation_uuid: 'c2', unread: 1 });
  });

  it('merges a delivery update unless the message is already delivered or failed; an unknown one is added as outgoing', () => {
    const sent = ev('outgoing_message', NOW, { send_status: 'sent' });
    const failed = ev('outgoing_message', NOW + 1, { send_status: 'failed' });
    let s = openConversation(state(), 'c1');
    s = { ...s, timeline: [sent, failed] };
    s = applyLive(s, live('delivery_message', { conversation_uuid: 'c1', message: { ...sent, send_status: 'delivered' } }));
    s = applyLive(s, live('delivery_message', { conversation_uuid: 'c1', message: { ...failed, send_status: 'delivered' } }));
    expect(s.timeline.map((e) => e.send_status)).toEqual(['delivered', 'failed']);
    s = applyLive(s, live('delivery_message', { conversation_uuid: 'c1', message: { ...sent, send_status: 'sent' } }));
    expect(s.timeline[0].send_status).toBe('delivered');

    const unknown = ev('incoming_message', NOW + 2, { send_status: 'sent' });
    s = applyLive(s, live('delivery_message', { conversation_uuid: 'c1', message: unknown }));
    expect(s.timeline[2]).toMatchObject({ event_type: 'outgoing_message', send_status: 'sent' });
    // another conversation's delivery does not touch the open timeline
    s = applyLive(s, live('delivery_message', { conversation_uuid: 'c9', message: ev('outgoing_message', NOW + 3, { conversation_uuid: 'c9' }) }));
    expect(s.timeline).toHaveLength(3);
  });

  it('sets read_at on a read update, and the unread count of the conversation', () => {
    const sent = ev('outgoing_message', NOW, { send_status: 'delivered' });
    const s = applyLive({ ...openConversation(state(), 'c1'), timeline: [sent] }, live('message_read', { conversation_uuid: 'c1', message_uuid: sent.message_uuid!, read_at: iso(NOW + 5), unread: 0 }));
    expect(s.timeline[0]).toMatchObject({ read_at: iso(NOW + 5), send_status: 'read' });
    const other = applyLive(state({ conversations: [conv({ conversation_uuid: 'c2', unread: 3 })] }), live('message_read', { conversation_uuid: 'c2', message_uuid: null, read_at: iso(NOW), unread: 0 }));
    expect(other.conversations[0].unread).toBe(0);
  });

  it('puts tag, team, agent and status changes and notes into the timeline and the conversation’s metadata', () => {
    let s = openConversation(state({ conversations: [conv()] }), 'c1');
    const tag = ev('set_tag', NOW, { event_data: { added_tags: [3] } });
    s = applyLive(s, live('metadata_change_add', { conversation: conv({ metadata: { team: [], agent: [], tags: [3] } }), event: tag }));
    const note = ev('internal_note', NOW + 1, { event_data: { note: '<b>call back</b>' } });
    s = applyLive(s, live('internal_note', { conversation_uuid: 'c1', event: note }));
    const closed = ev('change_state', NOW + 2, { event_data: { state: 'closed' } });
    s = applyLive(s, live('status_change', { conversation: conv({ conversation_status: 'closed', metadata: { team: [], agent: [], tags: [3] } }), event: closed, previous_status: 'active' }));
    expect(s.timeline.map((e) => e.event_type)).toEqual(['set_tag', 'internal_note', 'change_state']);
    expect(s.conversations[0]).toMatchObject({ conversation_status: 'closed', metadata: { tags: [3] } });
  });

  it('applies an event twice only once (the same event uuid)', () => {
    const m = ev('incoming_message', NOW);
    let s = openConversation(state({ conversations: [conv()] }), 'c1');
    s = applyLive(s, live('incoming_message', { conversation: conv(), message: m }));
    s = applyLive(s, live('incoming_message', { conversation: conv(), message: m }));
    expect(s.timeline).toHaveLength(1);
  });

  it('does not take the whole space\'s totals of space_statistics as the caller\'s; it asks the server again', () => {
    const totals = { all: 9, active: 4, unanswered: 5, closed: 0, my_closed: 0, assigned_to_me: 1 };
    const s = applyLive(state({ totals: { all: 1, active: 1 } }), live('space_statistics', { space_id: 1, totals }));
    expect(s.totals).toEqual({ all: 1, active: 1 });
    expect([...TOTALS_EVENTS].sort()).toEqual(['incoming_message', 'metadata_change_add', 'metadata_change_remove', 'metadata_update', 'space_statistics', 'start_conversation', 'status_change']);
  });
});

describe('timeline layout', () => {
  it('puts a separator before each day and groups the unread messages after a divider', () => {
    const day1 = Date.parse('2026-11-23T10:00:00');
    const day2 = Date.parse('2026-11-24T10:00:00');
    const events = mergeEvents([], [
      ev('incoming_message', day1, { read_at: iso(day1) }),
      ev('outgoing_message', day1 + 1000),
      ev('incoming_message', day2),
      ev('assign_team', day2 + 1000, { event_data: { new_team: [2] } }),
      ev('incoming_message', day2 + 2000),
    ]);
    const items = layoutTimeline(events, firstUnreadKey(events), dayKey);
    expect(items.map((i) => (i.kind === 'event' ? i.event.event_type : i.kind === 'unread' ? `unread:${i.count}` : i.kind))).toEqual([
      'day',
      'incoming_message',
      'outgoing_message',
      'day',
      'unread:2',
      'incoming_message',
      'assign_team',
      'incoming_message',
    ]);
  });

  it('orders pages loaded upward before the ones already shown, without duplicates', () => {
    const newer = [ev('incoming_message', NOW), ev('incoming_message', NOW + 1)];
    const older = [ev('incoming_message', NOW - 10), newer[0]];
    expect(mergeEvents(newer, older).map((e) => e.event_uuid)).toEqual([older[0].event_uuid, newer[0].event_uuid, newer[1].event_uuid]);
  });
});

describe('live sequence (resume)', () => {
  it('applies the next sequence, drops a replayed one and reports a hole', () => {
    expect(sequenceCheck(undefined, 5)).toBe('apply');
    expect(sequenceCheck(5, 6)).toBe('apply');
    expect(sequenceCheck(6, 6)).toBe('duplicate');
    expect(sequenceCheck(6, 3)).toBe('duplicate');
    expect(sequenceCheck(6, 9)).toBe('gap');
  });
});
