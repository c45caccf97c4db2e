import { inboundContent } from '../media/inbound';
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
  MessageStatusesChangedV1,
  parseEventData,
  SendBatchProcessedV1,
  Topics,
  type EventData,
  type EventEnvelope,
  type InboxSendStatusValue,
  type StatusChanged,
  flattenStatusBatches,
  forEachStatusChange,
  isContractUuid,
  parseStatusChanged,
} from '@switchboard/contracts';
import {
  BatchedIdempotentConsumer,
  eachAtOnce,
  EventBus,
  preparedQuery,
  PROCESS_ROLES,
  timeOrderedUuid,
  tracingEnabled,
  type BatchItem,
  type ProcessRoles,
} from '@switchboard/platform';
import { Clock } from '../clock';
import { INBOX_CONNECTION, INBOX_SCHEMA } from '../inbox.options';
import { ConversationsService, normalisePhone, SPACE_TOTALS_JSON } from './conversations.service';
import { ROOM_RECORD_PARAMS, RoomEvents, type RoomEmit } from './rooms.service';
import { SendWaiters, type SendOutcome } from './send-waiters';
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
 * An event that is surely not about an inbox send, from its data as it comes: a campaign's status (the inbox asks
 * streams with `campaignId: null`, docs/decisions/0051) or another requester's send-batch answer (docs/decisions/0160).
 * Such events cost no parse; anything else is parsed by the contract (and fails as before when it does not parse).
 */
function notTheInbox(e: EventEnvelope): boolean {
  const d = e.data as { campaignId?: unknown; requester?: unknown } | null;
  if (e.type === SendBatchProcessedV1.type) return typeof d?.requester === 'string' && d.requester !== 'inbox';
  return Boolean(d?.campaignId);
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
      types: [MessageStatusChangedV1.type, MessageStatusesChangedV1.type, SendBatchProcessedV1.type],
      concurrency: 16,
      // a delivered chunk in one call and a fixed number of statements (docs/decisions/0180); a campaign's statuses and
      // answers (all of a campaign's traffic) are skipped unparsed (0160). Dispatch's batches of statuses read item by
      // item (0173). With tracing on, each event in its own consumer span, as one by one.
      handler: (e) => this.onChunk([e]),
      batchHandler: (events, context) => (tracingEnabled() ? this.tracedChunk(flattenStatusBatches(events, (data) => !(data as { campaignId?: unknown } | null)?.campaignId), context) : this.onChunk(events)),
    });
  }

  /** With tracing on: each event of a chunk in its own consumer span, as a chunk of one. */
  private readonly tracedChunk = eachAtOnce((e) => (notTheInbox(e) ? undefined : this.onChunk([e])));

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
      return { d, contact, ours, at: new Date(d.receivedAt), preview, conv: `${d.accountId}|${d.streamId}|${contact}` };
    });
    // the most specific routing: one naming our number first, then one for the whole stream; else the account's first space
    const routeKey = (d: Received) => `${d.accountId}|${d.streamId}|${d.accountPhone}`;
    const wanted = [...new Map(all.map((x) => [routeKey(x.d), x.d])).values()];
    // the routes and the known contacts in ONE statement (docs/decisions/0082): rows of kind 'r' (a route, by the index
    // of its key) and 'c' (a contact of the batch's numbers). Its arrays are read through scalar subqueries: as
    // constants, a custom plan always looked cheaper than the generic one and it was planned on every call (0111).
    const looked = await preparedQuery<Row>(
      m,
      'inbox_received_lookup',
      `SELECT 'r' AS kind, t.i::int, COALESCE(r.space_id, f.id)::text AS space_id, r.team_id::text, NULL::text AS account_id, NULL::text AS phone, NULL::text AS contact_key, NULL::text AS name
         FROM unnest((SELECT $1::bigint[]), (SELECT $2::bigint[]), (SELECT $3::text[])) WITH ORDINALITY AS t(account_id, stream_id, phone, i)
         LEFT JOIN LATERAL (
           SELECT space_id, team_id FROM inbox.incoming_routing
           WHERE account_id = t.account_id AND stream_id = t.stream_id
             AND (senders = '{}' OR EXISTS (SELECT 1 FROM unnest(senders) s WHERE lower(regexp_replace(s, '[\\s+()-]', '', 'g')) = lower(regexp_replace(t.phone, '[\\s+()-]', '', 'g'))))
           ORDER BY (senders <> '{}') DESC, id LIMIT 1) r ON true
         LEFT JOIN LATERAL (SELECT id FROM inbox.space WHERE account_id = t.account_id AND r.space_id IS NULL ORDER BY id LIMIT 1) f ON true
       UNION ALL
       SELECT 'c', NULL, NULL, NULL, c.account_id::text, c.phone, c.contact_key, NULLIF(trim(c.first_name || ' ' || c.last_name), '')
         FROM inbox.contact c JOIN unnest((SELECT $4::bigint[]), (SELECT $5::text[])) AS t(account_id, phone) ON c.account_id = t.account_id AND c.phone = t.phone
       UNION ALL
       SELECT 'd', NULL, NULL, NULL, e.account_id::text, e.message_uuid::text, NULL, NULL
         FROM inbox.event e WHERE e.message_uuid = ANY((SELECT $6::uuid[])::uuid[])`,
      [
        wanted.map((d) => d.accountId),
        wanted.map((d) => d.streamId),
        wanted.map((d) => d.accountPhone),
        all.map((x) => x.d.accountId),
        all.map((x) => x.contact),
        all.map((x) => x.d.messageUuid),
      ],
    );
    // the messages not stored before, each once (the first of its repeats in the batch); a uuid stored for another
    // account is not this message (its insert fails on the unique key, as before). By the unique key's index: as a
    // join with the array, the generic plan scanned the table
    const stored = new Set(looked.filter((r) => r.kind === 'd').map((r) => `${r.account_id}|${r.phone}`));
    const msgs = all.filter((x) => {
      const k = `${x.d.accountId}|${x.d.messageUuid}`;
      if (stored.has(k)) return false;
      stored.add(k);
      return true;
    });
    if (msgs.length === 0) return;
    const routes = new Map(
      looked.filter((r) => r.kind === 'r').map((r) => [routeKey(wanted[(r.i as number) - 1]), { spaceId: (r.space_id as string | null) ?? null, teams: r.team_id ? [r.team_id as string] : [] }]),
    );
    const known = new Map(looked.filter((r) => r.kind === 'c').map((r) => [`${r.account_id}|${r.phone}`, r]));
    // one row per conversation, folded as one upsert per message would have left it
    const folds = new Map<string, { first: (typeof msgs)[number]; last: (typeof msgs)[number]; latest: (typeof msgs)[number]; n: number; spaceId: string | null; teams: string[]; key: string | null; name: string | null; maxAt: Date }>();
    for (const x of msgs) {
      const route = routes.get(routeKey(x.d)) ?? { spaceId: null, teams: [] };
      const c = known.get(`${x.d.accountId}|${x.contact}`);
      const key = (c?.contact_key as string | undefined) ?? null;
      const name = (c?.name as string | null | undefined) ?? x.d.contactName ?? null;
      const f = folds.get(x.conv);
      if (!f) {
        folds.set(x.conv, { first: x, last: x, latest: x, n: 1, spaceId: route.spaceId, teams: route.teams, key, name, maxAt: x.at });
        continue;
      }
      if (f.spaceId === null) Object.assign(f, { spaceId: route.spaceId, teams: route.teams });
      f.n += 1;
      f.last = x;
      if (x.at >= f.maxAt) Object.assign(f, { latest: x, maxAt: x.at });
      f.key = key ?? f.key;
      f.name = name ?? f.name;
    }
    const fs = [...folds.values()];
    const col = <T>(g: (f: (typeof fs)[number]) => T) => fs.map(g);
    const convs = await preparedQuery<Row>(
      m,
      'inbox_received_upsert',
      `INSERT INTO inbox.conversation AS c (uuid, account_id, space_id, stream_id, stream_uid, stream_type, channel, account_phone, contact_phone, contact_key, contact_name,
         status, unread, team_ids, start_time, last_incoming_at, last_message, last_message_type, last_updated)
       SELECT t.uuid, t.account_id, t.space_id, t.stream_id, t.stream_uid, t.stream_type, t.channel, t.account_phone, t.contact_phone, t.contact_key, t.contact_name,
         'unanswered', t.n, COALESCE((SELECT array_agg(x::bigint) FROM jsonb_array_elements_text(t.teams) x), '{}'), t.start_time, t.at, t.last_message, t.last_message_type, t.at
       FROM unnest((SELECT $1::uuid[]), (SELECT $2::bigint[]), (SELECT $3::bigint[]), (SELECT $4::bigint[]), (SELECT $5::uuid[]), (SELECT $6::int[]), (SELECT $7::text[]), (SELECT $8::text[]),
         (SELECT $9::text[]), (SELECT $10::text[]), (SELECT $11::text[]), (SELECT $12::int[]), (SELECT $13::jsonb[]), (SELECT $14::timestamptz[]), (SELECT $15::timestamptz[]), (SELECT $16::text[]), (SELECT $17::text[]))
         AS t(uuid, account_id, space_id, stream_id, stream_uid, stream_type, channel, account_phone, contact_phone, contact_key, contact_name, n, teams, start_time, at, last_message, last_message_type)
       ORDER BY t.account_id, t.stream_id, t.contact_phone
       ON CONFLICT (account_id, stream_id, contact_phone) DO UPDATE SET
         status = 'unanswered', unread = c.unread + EXCLUDED.unread, temp = false, closed_by = NULL, closed_at = NULL,
         space_id = COALESCE(c.space_id, EXCLUDED.space_id), team_ids = CASE WHEN c.space_id IS NULL THEN EXCLUDED.team_ids ELSE c.team_ids END,
         account_phone = EXCLUDED.account_phone, contact_name = COALESCE(EXCLUDED.contact_name, c.contact_name), contact_key = COALESCE(EXCLUDED.contact_key, c.contact_key),
         last_incoming_at = GREATEST(c.last_incoming_at, EXCLUDED.last_incoming_at),
         last_message = CASE WHEN EXCLUDED.last_updated >= c.last_updated THEN EXCLUDED.last_message ELSE c.last_message END,
         last_message_type = CASE WHEN EXCLUDED.last_updated >= c.last_updated THEN EXCLUDED.last_message_type ELSE c.last_message_type END,
         last_updated = GREATEST(c.last_updated, EXCLUDED.last_updated)
       RETURNING ${CONVERSATION_COLUMNS}, (xmax = 0) AS created`,
      [
        // time-ordered: a new conversation's keys (its uuid, its room) append to their indexes (docs/decisions/0155)
        col(() => timeOrderedUuid()),
        col((f) => f.first.d.accountId),
        col((f) => f.spaceId),
        col((f) => f.first.d.streamId),
        col((f) => f.first.d.streamUid),
        col((f) => f.first.d.streamType),
        col((f) => f.first.d.channel),
        col((f) => f.last.ours),
        col((f) => f.first.contact),
        col((f) => f.key),
        col((f) => f.name),
        col((f) => f.n),
        col((f) => JSON.stringify(f.teams)),
        col((f) => f.first.at),
        col((f) => f.maxAt),
        col((f) => f.latest.preview),
        col((f) => f.latest.d.messageType),
      ],
    );
    const convOf = new Map(convs.map((c) => [`${c.account_id}|${c.stream_id}|${c.contact_phone}`, c]));
    const uuids = msgs.map(() => timeOrderedUuid());
    const spaces = [...new Map(convs.filter((c) => c.space_id).map((c) => [c.space_id as string, c.account_id as string])).entries()];
    const actors = msgs.map((x) => ({ type: 'contact', id: null, name: (convOf.get(x.conv)?.contact_name as string | null | undefined) ?? null }));
    const contents = msgs.map((x) => inboundContent(x.d));
    // each message's live event shows its conversation as that message left it (a conversation's earlier messages of
    // the batch: fewer unread, their own text), and its timeline event as inserted below
    const seen = new Map<string, number>();
    const emits: RoomEmit[] = msgs.map((x, i) => {
      const conv = convOf.get(x.conv) as Row;
      const f = folds.get(x.conv) as (typeof fs)[number];
      const k = seen.get(x.conv) ?? 0;
      seen.set(x.conv, k + 1);
      const asLeft = k === f.n - 1 ? conv : { ...conv, unread: Number(conv.unread) - (f.n - 1 - k), last_message: x.preview, last_message_type: x.d.messageType, last_updated: x.at };
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
        msgs.map((x) => convOf.get(x.conv)?.id),
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
   * A delivered chunk of the statuses group, dispatch's status changes (per message and in batches, 0173) and streams'
   * answers to send batches alike, in a fixed number of statements whatever its size (docs/decisions/0180): every
   * status that can be the inbox's (a campaign's never is: skipped unparsed, 0051) and every refused item of an inbox
   * answer, in the chunk's order, in ONE update of the matching outgoing events; one query for the conversations of the
   * rows it moved; their room events in one statement; the accepted items of the chunk's answers in one more. A status
   * of a message that is not the inbox's costs its share of the update (an index probe), no round trip of its own.
   */
  async onChunk(events: EventEnvelope[]): Promise<void> {
    const statuses: SendStatus[] = [];
    const answers: Processed[] = [];
    forEachStatusChange(
      events,
      (_id, data) => {
        if (!(data as { campaignId?: unknown } | null)?.campaignId) statuses.push(sendStatusFrom(parseStatusChanged(data)));
      },
      (e) => {
        if (notTheInbox(e)) return;
        if (e.type !== SendBatchProcessedV1.type) {
          // a status change of another version goes the contract's way, as one by one
          statuses.push(sendStatusFrom(parseStatusChanged(e.data)));
          return;
        }
        const d: Processed = parseEventData(SendBatchProcessedV1, e.data);
        if (d.requester !== 'inbox') return;
        answers.push(d);
        // a refused item is a status of its message, in its place among the chunk's
        for (const it of d.items) if (it.outcome === 'refused') statuses.push(refusedStatus(d.accountId, it, this.clock.now()));
      },
    );
    await this.applyStatuses(statuses);
    await this.applyAccepted(answers);
    // the requests waiting for these answers find their outcome written
    for (const d of answers) for (const it of d.items) this.waiters.settle(it.messageUuid, outcomeOf(it));
  }

  /** A status of one of the inbox's sends, one by one (a dead letter replayed, a chunk that failed): as a chunk of one. */
  async onStatus(e: EventEnvelope): Promise<void> {
    if (notTheInbox(e)) return;
    await this.onChunk([e]);
  }

  /** Streams' answer to a send batch: a refused item fails with its code (SENT_FAILED), an accepted one waits for dispatch. */
  async onProcessed(e: EventEnvelope): Promise<void> {
    // most answers are a campaign's (a thousand items each): not parsed to learn they are not the inbox's
    if (notTheInbox(e)) return;
    await this.onChunk([e]);
  }

  /**
   * The statuses of the inbox's sends, in ONE statement: per message (and account) the chunk's statuses folded into
   * what applying them in order leaves (`foldSendStatuses`), each row moved only forward by rank, its account matched.
   * Then the conversations of the rows moved, in one query, and one room event per row moved (a delivery, or a read
   * when it was read), recorded in one statement. Room events are best effort, as ever.
   */
  private async applyStatuses(statuses: SendStatus[]): Promise<void> {
    if (!statuses.length) return;
    const folded = foldSendStatuses(statuses);
    const rows = rowsOf(
      await this.ds.query(
        `UPDATE inbox.event e SET send_status = t.next, send_error = COALESCE(t.error, e.send_error),
           read_at = CASE WHEN t.read_at IS NOT NULL AND ${STORED_RANK} < 3 THEN COALESCE(e.read_at, t.read_at) ELSE e.read_at END,
           send_outcome = COALESCE(t.outcome, e.send_outcome)
         FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::int[], $5::text[], $6::timestamptz[], $7::text[]) WITH ORDINALITY AS t(message_uuid, account_id, next, rank, error, read_at, outcome, i)
         WHERE e.message_uuid = ANY($1::uuid[]) AND e.message_uuid = t.message_uuid AND e.account_id = t.account_id AND e.event_type = 'outgoing_message'
           AND ${STORED_RANK} < t.rank
         RETURNING ${EVENT_COLUMNS}, e.conversation_id::text, t.i::int AS i`,
        [
          folded.map((f) => f.messageUuid),
          folded.map((f) => f.accountId),
          folded.map((f) => f.next),
          folded.map((f) => RANK[f.next]),
          folded.map((f) => f.error),
          folded.map((f) => f.readAt),
          folded.map((f) => f.outcome),
        ],
      ),
    ) as Row[];
    if (!rows.length) return;
    rows.sort((a, b) => (a.i as number) - (b.i as number));
    const convs = new Map(
      ((await this.ds.query(`SELECT ${CONVERSATION_COLUMNS} FROM inbox.conversation c WHERE c.id = ANY($1::bigint[])`, [[...new Set(rows.map((r) => r.conversation_id as string))]])) as Row[]).map((c) => [
        c.id as string,
        c,
      ]),
    );
    const emits: RoomEmit[] = [];
    for (const row of rows) {
      const conv = convs.get(row.conversation_id as string);
      if (!conv) continue;
      const f = folded[(row.i as number) - 1];
      const view = eventView(row, conv.uuid);
      emits.push(
        f.next === 'read'
          ? { accountId: f.accountId, rooms: conversationRooms(conv), event: InboxWsEvent.MessageRead, payload: { conversation_uuid: conv.uuid, message_uuid: f.messageUuid, read_at: view.read_at ?? (f.readAt ?? f.at).toISOString(), unread: Number(conv.unread) } }
          : { accountId: f.accountId, rooms: conversationRooms(conv), event: InboxWsEvent.DeliveryMessage, payload: { conversation_uuid: conv.uuid, message: view } },
      );
    }
    try {
      await this.rooms.publish(await this.rooms.record(this.ds, emits));
    } catch (e) {
      this.log.warn(`room events of ${emits.length} send statuses: ${String(e)}`);
    }
  }

  /**
   * The accepted items of the chunk's answers in one statement: each event's outcome and price, and the conversations
   * an agent started no longer temporary once their first message is accepted (the item's `ref`).
   */
  private async applyAccepted(answers: Processed[]): Promise<void> {
    const uuids: string[] = [];
    const accounts: string[] = [];
    const prices: Array<number | null> = [];
    const currencies: Array<string | null> = [];
    const refs: string[] = [];
    const refAccounts: string[] = [];
    for (const d of answers) {
      for (const it of d.items) {
        if (it.outcome === 'refused') continue;
        uuids.push(it.messageUuid);
        accounts.push(d.accountId);
        prices.push(it.priceMicros);
        currencies.push(it.currency);
        // only a uuid can name a conversation
        if (isContractUuid(it.ref)) {
          refs.push(it.ref);
          refAccounts.push(d.accountId);
        }
      }
    }
    if (!uuids.length) return;
    await this.ds.query(
      `WITH a AS (
         UPDATE inbox.event e SET send_outcome = 'accepted', price_micros = t.price, currency = t.currency
           FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::text[]) AS t(message_uuid, account_id, price, currency)
          WHERE e.message_uuid = ANY($1::uuid[]) AND e.message_uuid = t.message_uuid AND e.account_id = t.account_id
          RETURNING 1
       ), c AS (
         UPDATE inbox.conversation c SET temp = false
           FROM unnest($5::uuid[], $6::bigint[]) AS t(uuid, account_id)
          WHERE c.uuid = ANY($5::uuid[]) AND c.uuid = t.uuid AND c.account_id = t.account_id AND c.temp
          RETURNING 1
       )
       SELECT (SELECT count(*) FROM a)::int AS events, (SELECT count(*) FROM c)::int AS conversations`,
      [uuids, accounts, prices, currencies, refs, refAccounts],
    );
  }
}

/** A status to apply to one of the inbox's sends: a dispatch status change, or a refused item of streams' answer. */
export interface SendStatus {
  accountId: string;
  messageUuid: string;
  next: InboxSendStatusValue;
  /** the failure's code: only a final status (failed, undelivered) has one */
  error: string | null;
  at: Date;
  /** streams' answer, only with a refusal (a final status) */
  outcome: string | null;
}

/** A message's statuses of a chunk as one: applied to its row, the same as applying them one by one in order. */
export interface FoldedSendStatus {
  accountId: string;
  messageUuid: string;
  /** the last status that would move the message (the furthest; the first of equal rank) */
  next: InboxSendStatusValue;
  error: string | null;
  outcome: string | null;
  at: Date;
  /** when it was read, if one of its statuses is a read: it marks the row read unless it was already read or further */
  readAt: Date | null;
}

const STORED_RANK = `COALESCE(CASE e.send_status WHEN 'sending' THEN 0 WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'read' THEN 3 ELSE 4 END, -1)`;

function sendStatusFrom(d: StatusChanged): SendStatus {
  const next = sendStatusOf(d.status, d.outgoingStatus);
  return { accountId: d.accountId, messageUuid: d.messageUuid, next, error: next === 'failed' || next === 'undelivered' ? (d.error ?? d.status) : null, at: new Date(d.occurredAt), outcome: null };
}

type AnswerItem = Processed['items'][number];

function refusedStatus(accountId: string, it: AnswerItem, at: Date): SendStatus {
  const notAuth = it.refusal === 'account_disabled';
  return { accountId, messageUuid: it.messageUuid, next: notAuth ? 'failedNotAuth' : 'failed', error: it.code ?? it.refusal ?? 'refused', at, outcome: notAuth ? 'not_authenticated' : 'refused' };
}

function outcomeOf(it: AnswerItem): SendOutcome {
  if (it.outcome !== 'refused') return { outcome: 'accepted', error: null };
  return { outcome: it.refusal === 'account_disabled' ? 'not_authenticated' : 'refused', error: it.code ?? it.refusal ?? 'refused' };
}

/**
 * The statuses of each message (and account) folded, in order, into one that leaves its row as applying them one by
 * one would. One by one, a status moves the row only past the rank it has; so of a message's statuses only those of a
 * higher rank than every one before them can ever move it (at most one per rank, in rising rank), and of those, the
 * ones above the stored rank do. The row ends at the last of them (`next`); an error and an outcome come only with a
 * final status, which is always the last; a read among them marks the row read when the stored rank is below read
 * (then that read moved it). A status naming another account for the same uuid is its own entry: it cannot mask the
 * message's own.
 */
export function foldSendStatuses(statuses: readonly SendStatus[]): FoldedSendStatus[] {
  const byKey = new Map<string, FoldedSendStatus>();
  for (const s of statuses) {
    const key = `${s.accountId}|${s.messageUuid}`;
    const f = byKey.get(key);
    const readAt = s.next === 'read' ? s.at : null;
    if (!f) {
      byKey.set(key, { accountId: s.accountId, messageUuid: s.messageUuid, next: s.next, error: s.error, outcome: s.outcome, at: s.at, readAt });
      continue;
    }
    if (RANK[s.next] <= RANK[f.next]) continue;
    Object.assign(f, { next: s.next, error: s.error, outcome: s.outcome, at: s.at, readAt: readAt ?? f.readAt });
  }
  return [...byKey.values()];
}
