import {
  ConversationFilter,
  inboxRoom,
  maskPhone,
  type ConversationFilterValue,
  type ConversationStatusValue,
  type InboxConversation,
  type InboxEventTypeValue,
  type InboxSendStatusValue,
  type InboxTimelineEvent,
} from '@switchboard/contracts';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- SQL rows are mapped field by field

/** The conversation columns every view selects (alias c). */
export const CONVERSATION_COLUMNS = `c.id::text, c.uuid::text, c.account_id::text, c.status, c.unread, c.temp, c.stream_id::text, c.stream_uid::text, c.stream_type, c.channel,
  c.space_id::text, c.start_time, c.team_ids::text[], c.agent_ids::text[], c.tag_ids::text[], c.last_message, c.last_message_type, c.last_updated,
  c.start_conversation_at, c.last_incoming_at, c.last_outgoing_at, c.account_phone, c.contact_phone, c.contact_key, c.contact_name, c.disabled, c.closed_by::text`;

export const EVENT_COLUMNS = `e.id::text, e.uuid::text, e.message_uuid::text, e.event_type, e.message_time, e.read_at, e.send_status, e.send_error, e.actor, e.content,
  e.event_data, e.source, e.destination, e.message_type`;

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(v as string).toISOString());


export function conversationView(r: Row, o: { showPhone: boolean; justAdded?: boolean; updated?: boolean }): InboxConversation {
  return {
    conversation_uuid: r.uuid,
    conversation_status: r.status as ConversationStatusValue,
    unread: Number(r.unread),
    temp: r.temp,
    stream_uuid: r.stream_uid,
    stream_type: Number(r.stream_type),
    channel: r.channel,
    space_id: r.space_id === null ? null : Number(r.space_id),
    start_time: iso(r.start_time) as string,
    metadata: { team: (r.team_ids as string[]).map(Number), agent: (r.agent_ids as string[]).map(Number), tags: (r.tag_ids as string[]).map(Number) },
    last_message: r.last_message,
    last_message_type: r.last_message_type,
    last_updated: iso(r.last_updated) as string,
    start_conversation_time: iso(r.start_conversation_at),
    last_incoming_time: iso(r.last_incoming_at),
    last_outgoing_time: iso(r.last_outgoing_at),
    account_phone_number: r.account_phone,
    contact_phone_number: o.showPhone ? r.contact_phone : maskPhone(r.contact_phone),
    contact_phone_key: r.contact_key,
    contact_name: r.contact_name,
    just_added: o.justAdded ?? false,
    isUpdated: o.updated ?? false,
    isDisabled: r.disabled,
  };
}

export function eventView(r: Row, conversationUuid: string, showPhone = true): InboxTimelineEvent {
  const hide = (v: string | null) => (v === null || showPhone ? v : maskPhone(v));
  return {
    message_uuid: r.message_uuid,
    event_uuid: r.uuid,
    conversation_uuid: conversationUuid,
    event_type: r.event_type as InboxEventTypeValue,
    message_time: iso(r.message_time) as string,
    read_at: iso(r.read_at),
    send_status: r.send_status as InboxSendStatusValue | null,
    send_error: r.send_error,
    actor: r.actor,
    content: r.content,
    event_data: r.event_data,
    source: r.event_type === 'incoming_message' ? hide(r.source) : r.source,
    destination: r.event_type === 'outgoing_message' ? hide(r.destination) : r.destination,
    message_type: r.message_type,
  };
}

/** The rooms a conversation's events go to: its space, its teams, its agents and itself. */
export function conversationRooms(r: Row): string[] {
  return [
    ...(r.space_id ? [inboxRoom('space', r.space_id)] : []),
    ...(r.team_ids as string[]).map((t) => inboxRoom('team', t)),
    ...(r.agent_ids as string[]).map((a) => inboxRoom('agent', a)),
    inboxRoom('conversation', r.uuid),
  ];
}

/** The SQL condition of a filter (alias c); `$me` is the caller's user id parameter. */
export function filterSql(f: ConversationFilterValue, me: string): string {
  switch (f) {
    case ConversationFilter.All:
      return 'true';
    case ConversationFilter.Active:
      return `c.status = 'active'`;
    case ConversationFilter.Unanswered:
      return `c.status = 'unanswered'`;
    case ConversationFilter.Closed:
      return `c.status = 'closed'`;
    case ConversationFilter.MyClosed:
      return `c.status = 'closed' AND c.closed_by = ${me}`;
    case ConversationFilter.AssignedToMe:
      return `c.agent_ids @> ARRAY[${me}]::bigint[]`;
  }
}
