import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { realtimeSubject, type InboxWsEventValue } from '@switchboard/contracts';
import { PROCESS_ROLES, RealtimeFanout, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { INBOX_CONNECTION } from '../inbox.options';

/** The realtime topic token of the websocket rooms: not one the SSE `/realtime` endpoint serves. */
export const INBOX_WS_TOPIC = 'inboxws';
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
    const r = (await this.ds.query(`DELETE FROM inbox.room_event WHERE at < $1`, [new Date(this.clock.now().getTime() - ROOM_REPLAY_WINDOW_MS)])) as [unknown, number];
    return r[1] ?? 0;
  }

  /** Numbers, records and publishes one event to several rooms of an account. Never throws: live updates are best effort. */
  async emit(accountId: string, rooms: readonly string[], event: InboxWsEventValue, payload: unknown): Promise<void> {
    const unique = [...new Set(rooms)].sort();
    if (!unique.length) return;
    const at = this.clock.now();
    try {
      const rows = (await this.ds.query(
        `WITH s AS (
           INSERT INTO inbox.room_seq (room, seq) SELECT r, 1 FROM unnest($1::text[]) r
           ON CONFLICT (room) DO UPDATE SET seq = inbox.room_seq.seq + 1
           RETURNING room, seq
         )
         INSERT INTO inbox.room_event (room, seq, account_id, event, payload, at)
         SELECT room, seq, $2, $3, $4::jsonb, $5 FROM s RETURNING room, seq::int`,
        [unique.map((r) => roomKey(accountId, r)), accountId, event, JSON.stringify(payload), at],
      )) as Array<{ room: string; seq: number }>;
      await Promise.all(
        rows.map((r) => {
          const room = r.room.slice(r.room.indexOf('|') + 1);
          const data: RoomMessage = { room, seq: r.seq, event, payload, at: at.toISOString() };
          return this.fanout.publish(roomSubject(accountId, room), { accountId, topic: INBOX_WS_TOPIC, type: event, data });
        }),
      );
    } catch (e) {
      this.log.warn(`room event ${event} for ${unique.join(',')}: ${String(e)}`);
    }
  }

  /** The room's current number and what followed `since` (null: nothing to replay), or `reset` when `since` is too old. */
  async replay(accountId: string, room: string, since: number | null): Promise<{ seq: number; reset: boolean; events: RoomMessage[] }> {
    const key = roomKey(accountId, room);
    const [cur] = (await this.ds.query(`SELECT seq::int FROM inbox.room_seq WHERE room = $1`, [key])) as Array<{ seq: number }>;
    const seq = cur?.seq ?? 0;
    if (since === null || since >= seq) return { seq, reset: false, events: [] };
    const rows = (await this.ds.query(
      `SELECT seq::int, event, payload, at FROM inbox.room_event WHERE room = $1 AND seq > $2 AND seq <= $3 ORDER BY seq`,
      [key, since, seq],
    )) as Array<{ seq: number; event: InboxWsEventValue; payload: unknown; at: Date }>;
    // the log must hold every number after `since`, else the client reloads
    if (rows.length !== seq - since) return { seq, reset: true, events: [] };
    return { seq, reset: false, events: rows.map((r) => ({ room, seq: r.seq, event: r.event, payload: r.payload, at: new Date(r.at).toISOString() })) };
  }
}
