import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { INBOX_WS_TOPIC, realtimeSubject, type InboxWsEventValue } from '@switchboard/contracts';
import { jsonOnce, parsedJsonOnce, preparedQuery, PROCESS_ROLES, RealtimeFanout, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { INBOX_CONNECTION } from '../inbox.options';

/** Events kept per room for a reconnect to resume from (docs/decisions/0035-inbox.md). */
export const ROOM_REPLAY_WINDOW_MS = 3_600_000;

/** `space:3` -> `rt.<acc>.inboxws.space.3`. */
export function roomSubject(accountId: string, room: string): string {
  const [kind, id] = room.split(':');
  return realtimeSubject(accountId, INBOX_WS_TOPIC, kind, id);
}

/** The key a room's sequence and replay log are kept under: rooms are per account. */
export const roomKey = (accountId: string, room: string): string => `${accountId}|${room}`;

export interface RoomMessage {
  room: string;
  seq: number;
  event: InboxWsEventValue;
  payload: unknown;
  at: string;
}

/** One event for several rooms of an account. */
export interface RoomEmit {
  accountId: string;
  rooms: readonly string[];
  event: InboxWsEventValue;
  payload: unknown;
}

/** The parameters the room log's statement numbers itself ($1..$8): work done along with it numbers its own after these. */
export const ROOM_RECORD_PARAMS = 8;

/**
 * Work done in the room log's statement, ahead of it (one round trip for both): common table expressions (`name AS
 * (...)`, comma-separated) placed before the room log's own, numbering their parameters from $9. One of them must be
 * `made (e, payload)`: the `json` payloads the statement makes itself, by the event's number in `emits` (1-based); those
 * events' `payload` is ignored, and what the statement made is what is recorded and published.
 */
export interface RoomRecordAlong {
  /** the prepared statement's name (its text is not the room log's alone) */
  name: string;
  ctes: string;
  values: unknown[];
}

/** A numbered room event, ready to publish. */
export interface RecordedRoomEvent {
  accountId: string;
  message: RoomMessage;
}

/**
 * Websocket room events: each gets the next number of each room it goes to (one statement: the room's sequence
 * row, locked for that statement only, and the replay log row), then goes out over the realtime driver (NATS in
 * distributed mode), to be bridged by the gateway's `/ws` to the sockets that joined the room. A socket that comes
 * back with the last number it saw is answered what followed from the replay log; one older than the window is told
 * to reload (`reset`).
 */
@Injectable()
export class RoomEvents implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger('InboxRooms');
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @InjectDataSource(INBOX_CONNECTION) private readonly ds: DataSource,
    @Inject(RealtimeFanout) private readonly fanout: RealtimeFanout,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    if (!this.roles.schedulers) return;
    this.timer = setInterval(() => void this.prune().catch((e: unknown) => this.log.warn(`prune: ${String(e)}`)), 60_000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async prune(): Promise<number> {
    const before = new Date(this.clock.now().getTime() - ROOM_REPLAY_WINDOW_MS);
    // the events and, by key, the payloads they pointed to (every row one statement recorded shares its `at`, so the
    // rows pointing to a payload row go in the same statement): a replay never finds an event without its payload, and no index on
    // `room_payload.at` is kept for the prune alone (docs/decisions/0102)
    const [r] = (await this.ds.query(
      `WITH gone AS (DELETE FROM inbox.room_event WHERE at < $1 RETURNING payload_id),
       p AS (DELETE FROM inbox.room_payload WHERE id IN (SELECT payload_id FROM gone WHERE payload_id IS NOT NULL))
       SELECT count(*)::int AS n FROM gone`,
      [before],
    )) as Array<{ n: number }>;
    return r?.n ?? 0;
  }

  /** Numbers, records and publishes one event to several rooms of an account. Never throws: live updates are best effort. */
  async emit(accountId: string, rooms: readonly string[], event: InboxWsEventValue, payload: unknown): Promise<void> {
    try {
      await this.publish(await this.record(this.ds, [{ accountId, rooms, event, payload }]));
    } catch (e) {
      this.log.warn(`room event ${event} for ${[...new Set(rooms)].join(',')}: ${String(e)}`);
    }
  }

  /**
   * Numbers and records many events in one statement (in the caller's transaction when given its manager): each event
   * gets the next numbers of the rooms it goes to, in the order of `emits`; each room's sequence row is bumped once by
   * its count (rows locked in room order). The payloads are read as JSON once (one JSON array text), however many
   * rooms each goes to. An event for one room keeps its payload in its row; the events for several rooms point to ONE
   * `room_payload` row for the whole statement, that array text, by their element's number (docs/decisions/0089,
   * 0128): a batch's payloads share their keys and most values, and one row of them is over PostgreSQL's 2 KB
   * threshold, so it is stored compressed (a few hundred bytes of WAL a message instead of a row of 1.2 KB each).
   * Payloads are kept as `json`, the text as sent: only checked, not converted to jsonb, and replayed exactly as they
   * went out live (docs/decisions/0102). Answers what to publish, in that order, once committed.
   * A prepared statement (docs/decisions/0111): its plan is made once per connection, not once per batch. `along`: the
   * caller's own writes and payloads in the same statement (docs/decisions/0120).
   */
  async record(q: DataSource | EntityManager, emits: readonly RoomEmit[], along?: RoomRecordAlong): Promise<RecordedRoomEvent[]> {
    const rooms: string[] = [];
    const owners: number[] = [];
    // every event's payload, as the text of ONE json array (element i-1 is event i's): sent as one text parameter, not
    // as a json[] whose every element the driver escapes quote by quote; stored inline for an event of one room, and
    // for the events of several rooms (their numbers in `shared`) the whole array once in room_payload, each row
    // pointing to its element (docs/decisions/0128). jsonOnce: the gateway's frames of these events reuse the text in
    // embedded mode
    const payloads: string[] = [];
    const shared: number[] = [];
    // whether any event keeps its own payload inline (one room, a payload of its own, not JSON null): only then does
    // the statement split the array into its elements; an incoming batch's events all point into the shared row or
    // have their payload made by the statement (space_statistics), and the second parse of the whole array was ~10 µs
    // of PostgreSQL CPU a message (docs/decisions/0133)
    let inline = false;
    emits.forEach((e, i) => {
      const its = [...new Set(e.rooms)].sort();
      for (const r of its) {
        rooms.push(roomKey(e.accountId, r));
        owners.push(i + 1);
      }
      const text = jsonOnce(e.payload) ?? 'null';
      payloads.push(text);
      if (its.length > 1) shared.push(i + 1);
      else if (text !== 'null') inline = true;
    });
    if (!rooms.length) return [];
    const at = this.clock.now();
    // its arrays and the payloads' text are read through scalar subqueries, as in 0111: as constants a custom plan
    // sees the batch's real sizes and can look cheaper than the generic plan on every call (so is planned each time)
    const rows = await preparedQuery<{ room: string; e: number; seq: number; made: string | null }>(
      q,
      along?.name ?? 'inbox_room_record',
      `WITH ${along ? `${along.ctes},` : 'made (e, payload) AS (SELECT NULL::int, NULL::json WHERE false),'}
       i AS (SELECT room, e, ord FROM unnest((SELECT $1::text[]), (SELECT $2::int[])) WITH ORDINALITY AS t(room, e, ord)),
       c AS (SELECT room, count(*)::bigint AS n FROM i GROUP BY room),
       s AS (
         INSERT INTO inbox.room_seq (room, seq) SELECT room, n FROM c ORDER BY room
         ON CONFLICT (room) DO UPDATE SET seq = inbox.room_seq.seq + EXCLUDED.seq
         RETURNING room, seq
       ),
       r AS (SELECT i.room, i.e, i.ord, s.seq - c.n + row_number() OVER (PARTITION BY i.room ORDER BY i.ord) AS seq FROM i JOIN s USING (room) JOIN c USING (room)),
       j AS MATERIALIZED (SELECT (SELECT $5::json) AS all_of),
       el AS MATERIALIZED (
         SELECT t.ord::int AS e, t.payload FROM json_array_elements((SELECT all_of FROM j)) WITH ORDINALITY AS t(payload, ord) WHERE (SELECT $8::boolean)
       ),
       pl AS MATERIALIZED (
         SELECT g.e, COALESCE(m.payload, el.payload, 'null'::json) AS payload, g.e = ANY((SELECT $7::int[])::int[]) AND m.e IS NULL AS shared
           FROM generate_series(1, cardinality((SELECT $4::text[])::text[])) AS g(e) LEFT JOIN made m ON m.e = g.e LEFT JOIN el ON el.e = g.e
       ),
       x AS MATERIALIZED (SELECT nextval('inbox.room_payload_id_seq') AS id WHERE EXISTS (SELECT 1 FROM pl WHERE shared)),
       p AS (INSERT INTO inbox.room_payload (id, payload, at) SELECT x.id, j.all_of, $6 FROM x, j),
       w AS (
         INSERT INTO inbox.room_event (room, seq, account_id, event, payload, payload_id, payload_ix, at)
         SELECT r.room, r.seq, ($3::bigint[])[r.e], ($4::text[])[r.e], CASE WHEN NOT pl.shared THEN pl.payload END,
                CASE WHEN pl.shared THEN x.id END, CASE WHEN pl.shared THEN r.e END, $6
           FROM r JOIN pl ON pl.e = r.e LEFT JOIN x ON true
       )
       SELECT r.room, r.e, r.seq::int, m.payload::text AS made FROM r LEFT JOIN made m ON m.e = r.e ORDER BY r.ord`,
      [rooms, owners, emits.map((e) => e.accountId), emits.map((e) => e.event), `[${payloads.join(',')}]`, at, shared, inline, ...(along?.values ?? [])],
    );
    const when = at.toISOString();
    // a payload the statement made: parsed once per event (its rooms share it), its text kept for the frames
    const made = new Map<number, unknown>();
    return rows.map((r) => {
      const e = emits[r.e - 1];
      const room = r.room.slice(r.room.indexOf('|') + 1);
      if (r.made !== null && !made.has(r.e)) made.set(r.e, parsedJsonOnce(r.made));
      const payload = r.made === null ? e.payload : made.get(r.e);
      return { accountId: e.accountId, message: { room, seq: r.seq, event: e.event, payload, at: when } };
    });
  }

  /** Sends recorded events over the realtime driver (NATS in distributed mode), in order. */
  async publish(recorded: readonly RecordedRoomEvent[]): Promise<void> {
    await Promise.all(
      recorded.map(({ accountId, message }) =>
        this.fanout.publish(roomSubject(accountId, message.room), { accountId, topic: INBOX_WS_TOPIC, type: message.event, data: message }),
      ),
    );
  }

  /** The room's current number and what followed `since` (null: nothing to replay), or `reset` when `since` is too old. */
  async replay(accountId: string, room: string, since: number | null): Promise<{ seq: number; reset: boolean; events: RoomMessage[] }> {
    const key = roomKey(accountId, room);
    const [cur] = (await this.ds.query(`SELECT seq::int FROM inbox.room_seq WHERE room = $1`, [key])) as Array<{ seq: number }>;
    const seq = cur?.seq ?? 0;
    if (since === null || since >= seq) return { seq, reset: false, events: [] };
    const rows = (await this.ds.query(
      `SELECT e.seq::int, e.event, COALESCE(e.payload, CASE WHEN e.payload_ix IS NULL THEN p.payload ELSE p.payload -> (e.payload_ix - 1) END) AS payload, e.at
         FROM inbox.room_event e LEFT JOIN inbox.room_payload p ON p.id = e.payload_id
        WHERE e.room = $1 AND e.seq > $2 AND e.seq <= $3 ORDER BY e.seq`,
      [key, since, seq],
    )) as Array<{ seq: number; event: InboxWsEventValue; payload: unknown; at: Date }>;
    // the log must hold every number after `since`, else the client reloads
    if (rows.length !== seq - since) return { seq, reset: true, events: [] };
    return { seq, reset: false, events: rows.map((r) => ({ room, seq: r.seq, event: r.event, payload: r.payload, at: new Date(r.at).toISOString() })) };
  }
}
