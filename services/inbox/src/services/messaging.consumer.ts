import { inboundContent } from '../media/inbound';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  Channel,
  inboundAddress,
  InboxWsEvent,
  MessageReceivedV1,
  MessageStatus,
  MessageStatusChangedV1,
  SendBatchProcessedV1,
  Topics,
  type EventData,
  type EventEnvelope,
  type InboxSendStatusValue,
} from '@switchboard/contracts';
import { EventBus, IdempotentConsumer, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { INBOX_CONNECTION, INBOX_SCHEMA } from '../inbox.options';
import { ConversationsService, normalisePhone } from './conversations.service';
import { RoomEvents } from './rooms.service';
import { SendWaiters } from './send-waiters';
import { rowsOf } from '../http/input';
import { CONVERSATION_COLUMNS, conversationRooms, conversationView, EVENT_COLUMNS, eventView } from './views';

export const CONVERSATIONS_GROUP = 'inbox.conversations';
export const STATUSES_GROUP = 'inbox.statuses';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- SQL rows are mapped field by field
type Processed = EventData<typeof SendBatchProcessedV1>;

/** Outgoing statuses only move forward; failed and undelivered are final, read is the furthest. */
const RANK: Record<string, number> = { sending: 0, sent: 1, delivered: 2, read: 3, undelivered: 4, failed: 4, failedNotAuth: 4 };

export function sendStatusOf(status: string, outgoing: string | null): InboxSendStatusValue {
  if (outgoing === 'read') return 'read';
  switch (status) {
    case MessageStatus.Accepted:
      return 'sending';
    case MessageStatus.Sent:
      return 'sent';
    case MessageStatus.Delivered:
      return 'delivered';
    case MessageStatus.Undelivered:
      return 'undelivered';
    default:
      return 'failed';
  }
}

/**
 * Conversations from dispatch's incoming messages (two-way SMS, WhatsApp, Telegram bot and private), routed by the
 * account's incoming routing (stream and our number -> space and team); the statuses of the inbox's own sends
 * (dispatch's status changes, streams' answers to the send batches) merged into the timeline.
 */
@Injectable()
export class MessagingConsumer implements OnModuleInit {
  constructor(
    @InjectDataSource(INBOX_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly conversations: ConversationsService,
    private readonly rooms: RoomEvents,
    private readonly waiters: SendWaiters,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: CONVERSATIONS_GROUP, topics: [Topics.Dispatch], types: [MessageReceivedV1.type], concurrency: 16, handler: (e) => this.onReceived(e) });
    await this.bus.subscribe({
      group: STATUSES_GROUP,
      topics: [Topics.Dispatch, Topics.Streams],
      types: [MessageStatusChangedV1.type, SendBatchProcessedV1.type],
      concurrency: 16,
      handler: (e) => (e.type === SendBatchProcessedV1.type ? this.onProcessed(e) : this.onStatus(e)),
    });
  }

  async onReceived(e: EventEnvelope): Promise<void> {
    const d = MessageReceivedV1.schema.parse(e.data);
    const contact = d.channel === Channel.Sms || d.channel === Channel.WhatsApp ? normalisePhone(d.contactPhone) : d.contactPhone;
    // our number in E.164 (carriers hand it over as bare digits): the sender replies go out from
    const ours = d.channel === Channel.Sms ? (inboundAddress('sms', d.accountPhone) ?? d.accountPhone) : d.accountPhone;
    let out: { conv: Row; ev: Row; created: boolean } | null = null;
    await IdempotentConsumer.handleOnce(this.ds, INBOX_SCHEMA, CONVERSATIONS_GROUP, e, async (m) => {
      // the most specific routing: one naming our number first, then one for the whole stream
      const [route] = (await m.query(
        `SELECT space_id::text, team_id::text FROM inbox.incoming_routing
         WHERE account_id = $1 AND stream_id = $2
           AND (senders = '{}' OR EXISTS (SELECT 1 FROM unnest(senders) s WHERE lower(regexp_replace(s, '[\\s+()-]', '', 'g')) = lower(regexp_replace($3, '[\\s+()-]', '', 'g'))))
         ORDER BY (senders <> '{}') DESC, id LIMIT 1`,
        [d.accountId, d.streamId, d.accountPhone],
      )) as Row[];
      const [first] = route ? [] : ((await m.query(`SELECT id::text AS space_id FROM inbox.space WHERE account_id = $1 ORDER BY id LIMIT 1`, [d.accountId])) as Row[]);
      const spaceId = route?.space_id ?? first?.space_id ?? null;
      const teams = route?.team_id ? [route.team_id] : [];
      const [known] = (await m.query(`SELECT contact_key, NULLIF(trim(first_name || ' ' || last_name), '') AS name FROM inbox.contact WHERE account_id = $1 AND phone = $2`, [d.accountId, contact])) as Row[];
      const at = new Date(d.receivedAt);
      const preview = d.body || (d.media ? `[${d.messageType}]` : '');
      const [conv] = (await m.query(
        `INSERT INTO inbox.conversation AS c (uuid, account_id, space_id, stream_id, stream_uid, stream_type, channel, account_phone, contact_phone, contact_key, contact_name,
           status, unread, team_ids, start_time, last_incoming_at, last_message, last_message_type, last_updated)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'unanswered', 1, $12, $13, $13, $14, $15, $13)
         ON CONFLICT (account_id, stream_id, contact_phone) DO UPDATE SET
           status = 'unanswered', unread = c.unread + 1, temp = false, closed_by = NULL, closed_at = NULL,
           space_id = COALESCE(c.space_id, EXCLUDED.space_id), team_ids = CASE WHEN c.space_id IS NULL THEN EXCLUDED.team_ids ELSE c.team_ids END,
           account_phone = EXCLUDED.account_phone, contact_name = COALESCE(EXCLUDED.contact_name, c.contact_name), contact_key = COALESCE(EXCLUDED.contact_key, c.contact_key),
           last_incoming_at = GREATEST(c.last_incoming_at, EXCLUDED.last_incoming_at),
           last_message = CASE WHEN EXCLUDED.last_updated >= c.last_updated THEN EXCLUDED.last_message ELSE c.last_message END,
           last_message_type = CASE WHEN EXCLUDED.last_updated >= c.last_updated THEN EXCLUDED.last_message_type ELSE c.last_message_type END,
           last_updated = GREATEST(c.last_updated, EXCLUDED.last_updated)
         RETURNING ${CONVERSATION_COLUMNS}, (xmax = 0) AS created`,
        [randomUUID(), d.accountId, spaceId, d.streamId, d.streamUid, d.streamType, d.channel, ours, contact, known?.contact_key ?? null, known?.name ?? d.contactName ?? null, teams, at, preview.slice(0, 500), d.messageType],
      )) as Row[];
      const ev = await this.conversations.addEvent(m, conv, {
        type: 'incoming_message',
        actor: { type: 'contact', id: null, name: conv.contact_name },
        content: inboundContent(d),
        body: d.body || null,
        messageUuid: d.messageUuid,
        source: contact,
        destination: ours,
        messageType: d.messageType,
        at,
      });
      out = { conv, ev, created: conv.created === true };
    });
    if (!out) return;
    const { conv, ev, created } = out as { conv: Row; ev: Row; created: boolean };
    await this.rooms.emit(d.accountId, conversationRooms(conv), InboxWsEvent.IncomingMessage, {
      conversation: conversationView(conv, { showPhone: true, justAdded: created }),
      message: eventView(ev, conv.uuid),
    });
    await this.conversations.spaceStatistics(d.accountId, conv.space_id);
  }

  /** A status of one of the inbox's sends (other messages are not the inbox's: one index lookup, nothing written). */
  async onStatus(e: EventEnvelope): Promise<void> {
    const d = MessageStatusChangedV1.schema.parse(e.data);
    const next = sendStatusOf(d.status, d.outgoingStatus);
    await this.applyStatus(d.accountId, d.messageUuid, next, next === 'failed' || next === 'undelivered' ? (d.error ?? d.status) : null, new Date(d.occurredAt));
  }

  private async applyStatus(accountId: string, messageUuid: string, next: InboxSendStatusValue, error: string | null, at: Date, outcome: string | null = null): Promise<Row | null> {
    const rank = RANK[next];
    // one statement: a request polling for streams' answer sees the outcome and the failed status together
    const [row] = rowsOf(await this.ds.query(
      `UPDATE inbox.event e SET send_status = $3, send_error = COALESCE($4, e.send_error), read_at = CASE WHEN $3 = 'read' THEN COALESCE(e.read_at, $5) ELSE e.read_at END,
         send_outcome = COALESCE($7, e.send_outcome)
       WHERE e.message_uuid = $1 AND e.account_id = $2 AND e.event_type = 'outgoing_message'
         AND COALESCE(CASE e.send_status WHEN 'sending' THEN 0 WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'read' THEN 3 ELSE 4 END, -1) < $6
       RETURNING ${EVENT_COLUMNS}, e.conversation_id::text`,
      [messageUuid, accountId, next, error, at, rank, outcome],
    )) as Row[];
    if (!row) return null;
    const [conv] = (await this.ds.query(`SELECT ${CONVERSATION_COLUMNS} FROM inbox.conversation c WHERE c.id = $1`, [row.conversation_id])) as Row[];
    if (!conv) return row;
    const view = eventView(row, conv.uuid);
    if (next === 'read') {
      await this.rooms.emit(accountId, conversationRooms(conv), InboxWsEvent.MessageRead, { conversation_uuid: conv.uuid, message_uuid: messageUuid, read_at: view.read_at ?? at.toISOString(), unread: Number(conv.unread) });
    } else {
      await this.rooms.emit(accountId, conversationRooms(conv), InboxWsEvent.DeliveryMessage, { conversation_uuid: conv.uuid, message: view });
    }
    return row;
  }

  /** Streams' answer to a send batch: a refused item fails with its code (SENT_FAILED), an accepted one waits for dispatch. */
  async onProcessed(e: EventEnvelope): Promise<void> {
    const d: Processed = SendBatchProcessedV1.schema.parse(e.data);
    if (d.requester !== 'inbox') return;
    for (const it of d.items) {
      if (it.outcome === 'refused') {
        const notAuth = it.refusal === 'account_disabled';
        await this.applyStatus(d.accountId, it.messageUuid, notAuth ? 'failedNotAuth' : 'failed', it.code ?? it.refusal ?? 'refused', this.clock.now(), notAuth ? 'not_authenticated' : 'refused');
        this.waiters.settle(it.messageUuid, { outcome: notAuth ? 'not_authenticated' : 'refused', error: it.code ?? it.refusal ?? 'refused' });
      } else {
        await this.ds.query(`UPDATE inbox.event SET send_outcome = 'accepted', price_micros = $3, currency = $4 WHERE message_uuid = $1 AND account_id = $2`, [it.messageUuid, d.accountId, it.priceMicros, it.currency]);
        // a conversation an agent started is no longer temporary once its first message is accepted
        await this.ds.query(`UPDATE inbox.conversation SET temp = false WHERE uuid = $1 AND account_id = $2 AND temp`, [it.ref, d.accountId]);
        this.waiters.settle(it.messageUuid, { outcome: 'accepted', error: null });
      }
    }
  }
}
