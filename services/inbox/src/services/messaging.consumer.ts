import { inboundContent } from '../media/inbound';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
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
import { BatchedIdempotentConsumer, EventBus, preparedQuery, PROCESS_ROLES, type BatchItem, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { INBOX_CONNECTION, INBOX_SCHEMA } from '../inbox.options';
import { ConversationsService, normalisePhone, SPACE_TOTALS_JSON } from './conversations.service';
import { ROOM_RECORD_PARAMS, RoomEvents, type RoomEmit } from './rooms.service';
import { SendWaiters } from './send-waiters';
import { rowsOf } from '../http/input';
import { CONVERSATION_COLUMNS, conversationRooms, conversationView, EVENT_COLUMNS, eventView } from './views';

export const CONVERSATIONS_GROUP = 'inbox.conversations';
export const STATUSES_GROUP = 'inbox.statuses';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- SQL rows are mapped field by field
type Processed = EventData<typeof SendBatchProcessedV1>;
type Received = EventData<typeof MessageReceivedV1>;

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
  private readonly log = new Logger('InboxMessaging');
  private readonly received: BatchedIdempotentConsumer<Received>;

  constructor(
    @InjectDataSource(INBOX_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly conversations: ConversationsService,
    private readonly rooms: RoomEvents,
    private readonly waiters: SendWaiters,
    private readonly clock: Clock,
  ) {
    // no processed_events claim: a message is stored once by its own uuid (applyReceived, docs/decisions/0128)
    this.received = new BatchedIdempotentConsumer<Received>({
      dataSource: ds,
      schema: INBOX_SCHEMA,
      consumer: CONVERSATIONS_GROUP,
      claim: () => false,
      apply: (m, items) => this.applyReceived(m, items),
    });
  }

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

  /** Joins the batch of incoming messages being collected; resolves once its batch committed (see applyReceived). */
  onReceived(e: EventEnvelope): Promise<void> {
    return this.received.handle(e, MessageReceivedV1.schema.parse(e.data));
  }

  /**
   * The incoming messages of a batch, in one transaction and a fixed number of statements whatever its size: their
   * routes and known contacts looked up together, one upsert of their conversations (the messages of one conversation
   * folded into one row: unread + n, the latest message), then one statement for the insert of their timeline events
   * and their room events numbered and recorded (incoming_message in arrival order, then one space_statistics per
   * space touched), to be published once committed. A conversation's messages keep their arrival order (one lane per
   * contact on the bus). The three statements are prepared per connection and run on their generic plans (0111): planned
   * afresh, they cost PostgreSQL about as much to plan as a batch's messages cost to write at a quiet 500/s. Every
   * array parameter is read through a scalar subquery: as a constant, a custom plan sees a batch's real size, a batch
   * smaller than the generic plan's guess of ten rows always looks cheaper, and PostgreSQL kept planning afresh for as
   * long as its batches stayed small (docs/decisions/0120).
   *
   * Idempotent by the message's own uuid, not by a `processed_events` row per event (docs/decisions/0128): the lookup
   * also answers which of the batch's messages the account's timeline already holds (`inbox.event.message_uuid` is
   * unique), and those, and a message's repeats within the batch, are left out. A redelivery racing its first delivery
   * in another transaction fails on that unique key and the batch is tried again, event by event, when the first has
   * committed; the lookup then finds it.
   */
  private async applyReceived(m: EntityManager, items: Array<BatchItem<Received>>): Promise<(() => void) | void> {
    const all = items.map(({ data: d }) => {
      const contact = d.channel === Channel.Sms || d.channel === Channel.WhatsApp ? normalisePhone(d.contactPhone) : d.contactPhone;
      // our number in E.164 (carriers hand it over as bare digits): the sender replies go out from
      const ours = d.channel === Channel.Sms ? (inboundAddress('sms', d.accountPhone) ?? d.accountPhone) : d.accountPhone;
      const preview = (d.body || (d.media ? `[${d.messageType}]` : '')).slice(0, 500);
      return { d, contact, ours, at: new Date(d.receivedAt), preview };
    });
    // the routes, the known contacts, the messages stored before and the conversations' upsert in ONE statement
    // (docs/decisions/0152; before, a lookup and an upsert, 0082): every message goes in with its arrival number, and
    // the statement leaves out those the account's timeline already holds (`inbox.event.message_uuid` is unique) and
    // a message's repeats within the batch (the first kept), routes each by the most specific routing (one naming our
    // number first, then one for the whole stream; else the account's first space), and folds a conversation's
    // messages into one row as one upsert per message would have left it: unread + n, the latest message (the last of
    // the latest time), the first route with a space (its team), the contact's key and name (else the last name
    // sent). Each conversation's row answers its messages' arrival numbers. Its arrays are read through scalar
    // subqueries (0111): as constants, a custom plan always looked cheaper than the generic one; the stored messages are
    // found by the unique key's index on the uuids' array and the contacts by their key, one lookup each (as joins, the
    // generic plan scanned the tables: a first run of this statement took 467 µs of PostgreSQL a message).
    const convs = await preparedQuery<Row>(
      m,
      'inbox_received_upsert_routed',
      `WITH t AS MATERIALIZED (
         SELECT * FROM unnest((SELECT $1::bigint[]), (SELECT $2::bigint[]), (SELECT $3::text[]), (SELECT $4::text[]), (SELECT $5::uuid[]), (SELECT $6::timestamptz[]),
           (SELECT $7::text[]), (SELECT $8::text[]), (SELECT $9::text[]), (SELECT $10::uuid[]), (SELECT $11::int[]), (SELECT $12::text[]), (SELECT $13::text[]), (SELECT $14::uuid[]))
           WITH ORDINALITY AS t(account_id, stream_id, phone, contact, message_uuid, at, preview, message_type, contact_name, stream_uid, stream_type, channel, ours, conv_uuid, i)
       ),
       d AS MATERIALIZED (SELECT e.account_id, e.message_uuid FROM inbox.event e WHERE e.message_uuid = ANY((SELECT $5::uuid[])::uuid[])),
       f AS MATERIALIZED (
         SELECT DISTINCT ON (t.account_id, t.message_uuid) t.* FROM t
          WHERE NOT EXISTS (SELECT 1 FROM d WHERE d.message_uuid = t.message_uuid AND d.account_id = t.account_id)
          ORDER BY t.account_id, t.message_uuid, t.i
       ),
       rt AS MATERIALIZED (
         SELECT k.account_id, k.stream_id, k.phone, COALESCE(r.space_id, s.id) AS space_id, r.team_id
           FROM (SELECT DISTINCT account_id, stream_id, phone FROM f) k
           LEFT JOIN LATERAL (
             SELECT space_id, team_id FROM inbox.incoming_routing
             WHERE account_id = k.account_id AND stream_id = k.stream_id
               AND (senders = '{}' OR EXISTS (SELECT 1 FROM unnest(senders) s WHERE lower(regexp_replace(s, '[\\s+()-]', '', 'g')) = lower(regexp_replace(k.phone, '[\\s+()-]', '', 'g'))))
             ORDER BY (senders <> '{}') DESC, id LIMIT 1) r ON true
           LEFT JOIN LATERAL (SELECT id FROM inbox.space WHERE account_id = k.account_id AND r.space_id IS NULL ORDER BY id LIMIT 1) s ON true
       ),
       x AS (
         SELECT f.*, rt.space_id, rt.team_id, c.contact_key, COALESCE(NULLIF(trim(c.first_name || ' ' || c.last_name), ''), f.contact_name) AS name
           FROM f JOIN rt ON rt.account_id = f.account_id AND rt.stream_id = f.stream_id AND rt.phone = f.phone
           LEFT JOIN LATERAL (SELECT contact_key, first_name, last_name FROM inbox.contact WHERE account_id = f.account_id AND phone = f.contact LIMIT 1) c ON true
       ),
       g AS (
         SELECT account_id, stream_id, contact, count(*)::int AS n, array_agg(i::int ORDER BY i) AS ords,
           (array_agg(conv_uuid ORDER BY i))[1] AS uuid, (array_agg(stream_uid ORDER BY i))[1] AS stream_uid, (array_agg(stream_type ORDER BY i))[1] AS stream_type,
           (array_agg(channel ORDER BY i))[1] AS channel, (array_agg(ours ORDER BY i DESC))[1] AS account_phone,
           (array_agg(space_id ORDER BY i) FILTER (WHERE space_id IS NOT NULL))[1] AS space_id,
           (array_agg(team_id ORDER BY i) FILTER (WHERE space_id IS NOT NULL))[1] AS team_id,
           (array_agg(contact_key ORDER BY i DESC) FILTER (WHERE contact_key IS NOT NULL))[1] AS contact_key,
           (array_agg(name ORDER BY i DESC) FILTER (WHERE name IS NOT NULL))[1] AS contact_name,
           (array_agg(at ORDER BY i))[1] AS start_time, max(at) AS at,
           (array_agg(preview ORDER BY at DESC, i DESC))[1] AS last_message, (array_agg(message_type ORDER BY at DESC, i DESC))[1] AS last_message_type
         FROM x GROUP BY account_id, stream_id, contact
       ),
       u AS (
         INSERT INTO inbox.conversation AS c (uuid, account_id, space_id, stream_id, stream_uid, stream_type, channel, account_phone, contact_phone, contact_key, contact_name,
           status, unread, team_ids, start_time, last_incoming_at, last_message, last_message_type, last_updated)
         SELECT g.uuid, g.account_id, g.space_id, g.stream_id, g.stream_uid, g.stream_type, g.channel, g.account_phone, g.contact, g.contact_key, g.contact_name,
           'unanswered', g.n, CASE WHEN g.team_id IS NULL THEN '{}'::bigint[] ELSE ARRAY[g.team_id] END, g.start_time, g.at, g.last_message, g.last_message_type, g.at
         FROM g
         ORDER BY g.account_id, g.stream_id, g.contact
         ON CONFLICT (account_id, stream_id, contact_phone) DO UPDATE SET
           status = 'unanswered', unread = c.unread + EXCLUDED.unread, temp = false, closed_by = NULL, closed_at = NULL,
           space_id = COALESCE(c.space_id, EXCLUDED.space_id), team_ids = CASE WHEN c.space_id IS NULL THEN EXCLUDED.team_ids ELSE c.team_ids END,
           account_phone = EXCLUDED.account_phone, contact_name = COALESCE(EXCLUDED.contact_name, c.contact_name), contact_key = COALESCE(EXCLUDED.contact_key, c.contact_key),
           last_incoming_at = GREATEST(c.last_incoming_at, EXCLUDED.last_incoming_at),
           last_message = CASE WHEN EXCLUDED.last_updated >= c.last_updated THEN EXCLUDED.last_message ELSE c.last_message END,
           last_message_type = CASE WHEN EXCLUDED.last_updated >= c.last_updated THEN EXCLUDED.last_message_type ELSE c.last_message_type END,
           last_updated = GREATEST(c.last_updated, EXCLUDED.last_updated)
         RETURNING ${CONVERSATION_COLUMNS}, (xmax = 0) AS created, c.account_id AS k_account, c.stream_id AS k_stream, c.contact_phone AS k_contact
       )
       SELECT u.*, g.ords FROM u JOIN g ON g.account_id = u.k_account AND g.stream_id = u.k_stream AND g.contact = u.k_contact`,
      [
        all.map((x) => x.d.accountId),
        all.map((x) => x.d.streamId),
        all.map((x) => x.d.accountPhone),
        all.map((x) => x.contact),
        all.map((x) => x.d.messageUuid),
        all.map((x) => x.at),
        all.map((x) => x.preview),
        all.map((x) => x.d.messageType),
        all.map((x) => x.d.contactName),
        all.map((x) => x.d.streamUid),
        all.map((x) => x.d.streamType),
        all.map((x) => x.d.channel),
        all.map((x) => x.ours),
        all.map(() => randomUUID()),
      ],
    );
    if (convs.length === 0) return;
    // the messages not stored before, each once, in arrival order; each with its conversation, its place among the
    // conversation's messages of the batch and their count
    const placed = new Array<{ row: Row; k: number; n: number } | undefined>(all.length);
    for (const c of convs) {
      const ords = c.ords as number[];
      ords.forEach((o, k) => (placed[o - 1] = { row: c, k, n: ords.length }));
    }
    const msgs = all.flatMap((x, j) => {
      const p = placed[j];
      return p ? [{ ...x, ...p }] : [];
    });
    const uuids = msgs.map(() => randomUUID());
    const spaces = [...new Map(convs.filter((c) => c.space_id).map((c) => [c.space_id as string, c.account_id as string])).entries()];
    const actors = msgs.map((x) => ({ type: 'contact', id: null, name: (x.row.contact_name as string | null) ?? null }));
    const contents = msgs.map((x) => inboundContent(x.d));
    // each message's live event shows its conversation as that message left it (a conversation's earlier messages of
    // the batch: fewer unread, their own text), and its timeline event as inserted below
    const emits: RoomEmit[] = msgs.map((x, i) => {
      const { row: conv, k, n } = x;
      const asLeft = k === n - 1 ? conv : { ...conv, unread: Number(conv.unread) - (n - 1 - k), last_message: x.preview, last_message_type: x.d.messageType, last_updated: x.at };
      const event = { uuid: uuids[i], message_uuid: x.d.messageUuid, event_type: 'incoming_message', message_time: x.at, read_at: null, send_status: null, send_error: null, actor: actors[i], content: contents[i], event_data: null, source: x.contact, destination: x.ours, message_type: x.d.messageType };
      return {
        accountId: x.d.accountId,
        rooms: conversationRooms(conv),
        event: InboxWsEvent.IncomingMessage,
        payload: { conversation: conversationView(asLeft, { showPhone: true, justAdded: k === 0 && conv.created === true }), message: eventView(event, conv.uuid) },
      };
    });
    // one space_statistics per space touched, its totals made by the statement from the counters the upsert's trigger
    // has just moved (SPACE_TOTALS_JSON)
    for (const [space, account] of spaces) emits.push({ accountId: account, rooms: [`space:${space}`], event: InboxWsEvent.SpaceStatistics, payload: null });
    // the timeline events and the room events in ONE statement (docs/decisions/0120): its arrays through scalar
    // subqueries, as the other statements of the batch; the actors and contents as one JSON text each, not jsonb[]
    const $ = (n: number) => `$${ROOM_RECORD_PARAMS + n}`;
    const recorded = await this.rooms.record(m, emits, {
      name: 'inbox_received_events',
      ctes: `ins AS (
         INSERT INTO inbox.event (uuid, account_id, conversation_id, event_type, message_uuid, message_time, actor, content, body, source, destination, message_type)
         SELECT t.uuid, t.account_id, t.conversation_id, 'incoming_message', t.message_uuid, t.message_time, (SELECT ${$(6)}::jsonb) -> (t.i::int - 1),
           (SELECT ${$(7)}::jsonb) -> (t.i::int - 1), t.body, t.source, t.destination, t.message_type
         FROM unnest((SELECT ${$(1)}::uuid[]), (SELECT ${$(2)}::bigint[]), (SELECT ${$(3)}::bigint[]), (SELECT ${$(4)}::uuid[]), (SELECT ${$(5)}::timestamptz[]),
           (SELECT ${$(8)}::text[]), (SELECT ${$(9)}::text[]), (SELECT ${$(10)}::text[]), (SELECT ${$(11)}::text[])) WITH ORDINALITY
           AS t(uuid, account_id, conversation_id, message_uuid, message_time, body, source, destination, message_type, i)
       ),
       made (e, payload) AS (
         SELECT t.e, json_build_object('space_id', t.space_id, 'totals', ${SPACE_TOTALS_JSON})
           FROM unnest((SELECT ${$(12)}::int[]), (SELECT ${$(13)}::bigint[])) AS t(e, space_id)
           LEFT JOIN inbox.space_status_count n ON n.space_id = t.space_id
          GROUP BY t.e, t.space_id
       )`,
      values: [
        uuids,
        msgs.map((x) => x.d.accountId),
        msgs.map((x) => x.row.id),
        msgs.map((x) => x.d.messageUuid),
        msgs.map((x) => x.at),
        JSON.stringify(actors),
        JSON.stringify(contents),
        msgs.map((x) => x.d.body || null),
        msgs.map((x) => x.contact),
        msgs.map((x) => x.ours),
        msgs.map((x) => x.d.messageType),
        spaces.map((_, j) => msgs.length + j + 1),
        spaces.map(([s]) => s),
      ],
    });
    return () => void this.rooms.publish(recorded).catch((e: unknown) => this.log.warn(`room events of ${items.length} incoming messages: ${String(e)}`));
  }

  /**
   * A status of one of the inbox's sends (other messages are not the inbox's: one index lookup, nothing written). A
   * campaign's message is never the inbox's (the inbox asks streams with `campaignId: null`), so it costs no query:
   * at a campaign's speed those lookups were the inbox's whole share of every message (docs/decisions/0051).
   */
  async onStatus(e: EventEnvelope): Promise<void> {
    if ((e.data as { campaignId?: unknown } | null)?.campaignId) return;
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
