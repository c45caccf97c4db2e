import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { INBOX_WS_PATH, INBOX_WS_TOPIC, maskPhone, realtimeSubject, type InboxWsClientMessage, type InboxWsServerMessage, type RealtimeMessage } from '@switchboard/contracts';
import { jsonOnce, RealtimeFanout, RevocationList, TokenVerifier } from '@switchboard/platform';
import { poolFor } from '../proxy/upstreams';
import { GATEWAY_OPTIONS, type GatewayOptions } from '../gateway.options';

/** The realtime topic token the inbox service publishes its room events under (services/inbox rooms.service.ts). */
const WS_TOPIC = INBOX_WS_TOPIC;
const ROOM = /^(account|space|team|agent):\d{1,18}$|^conversation:[0-9a-f-]{36}$/;
const MAX_ROOMS = 200;
const MAX_MESSAGE_BYTES = 16 * 1024;
const GAP_WAIT_MS = 150;
const MAX_TIMER_MS = 2 ** 31 - 1;

interface RoomEvent {
  room: string;
  seq: number;
  event: string;
  payload: unknown;
  at: string;
}
interface JoinAnswer {
  room: string;
  seq: number;
  reset: boolean;
  events: RoomEvent[];
}

class RoomState {
  next = 0;
  ready = false;
  held: RoomEvent[] = [];
  pending = new Map<number, RoomEvent>();
  gapTimer: NodeJS.Timeout | null = null;
  filling = false;
  unsubscribe: (() => Promise<void>) | null = null;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- payloads are read field by field

/**
 * Room payloads are built once for every reader: the contact's number is masked here for those who may not see it.
 * Only the objects on the way to a masked field are copied (the event's payload is shared by every socket of the room).
 */
export function masked(payload: unknown): unknown {
  if (payload === null || payload === undefined || typeof payload !== 'object' || Array.isArray(payload)) return payload ?? null;
  const p: Json = { ...(payload as Json) };
  const conv = p.conversation as Json | null | undefined;
  if (conv && typeof conv === 'object' && typeof conv.contact_phone_number === 'string') p.conversation = { ...conv, contact_phone_number: maskPhone(conv.contact_phone_number) };
  for (const k of ['message', 'event'] as const) {
    const e = p[k] as Json | null | undefined;
    if (!e || typeof e !== 'object') continue;
    if (e.event_type === 'incoming_message' && typeof e.source === 'string') p[k] = { ...e, source: maskPhone(e.source) };
    if (e.event_type === 'outgoing_message' && typeof e.destination === 'string') p[k] = { ...e, destination: maskPhone(e.destination) };
  }
  return p;
}

/**
 * A room event's frame, serialised once for all the sockets of its room (one text for those who see contact numbers,
 * one for those who do not) and encoded once: the realtime driver hands every subscriber of a room the same message.
 * The unmasked frame takes the payload's text from jsonOnce, which the inbox's room log made already in embedded mode;
 * the text is the same as `JSON.stringify` of the frame object.
 */
const frames = new WeakMap<RoomEvent, { room: string; plain?: Buffer; masked?: Buffer }>();
export function eventFrame(room: string, e: RoomEvent, showPhone: boolean): Buffer {
  let f = frames.get(e);
  if (!f || f.room !== room) frames.set(e, (f = { room }));
  const k = showPhone ? 'plain' : 'masked';
  let frame = f[k];
  if (!frame) {
    const payload = showPhone ? jsonOnce(e.payload) : undefined;
    const text =
      payload !== undefined && typeof e.seq === 'number' && typeof e.event === 'string' && typeof e.at === 'string'
        ? `{"type":"event","room":${JSON.stringify(room)},"seq":${JSON.stringify(e.seq)},"event":${JSON.stringify(e.event)},"payload":${payload},"at":${JSON.stringify(e.at)}}`
        : JSON.stringify({ type: 'event', room, seq: e.seq, event: e.event, payload: showPhone ? e.payload : masked(e.payload), at: e.at } satisfies Record<keyof Extract<InboxWsServerMessage, { type: 'event' }>, unknown>);
    f[k] = frame = Buffer.from(text);
  }
  return frame;
}

class Connection {
  readonly rooms = new Map<string, RoomState>();
  closed = false;
  expiry: NodeJS.Timeout | null = null;
  constructor(
    readonly socket: WebSocket,
    readonly token: string,
    readonly accountId: string,
    /** INBOX_SHOW_PHONE (or a super administrator): contact numbers as they are. */
    readonly showPhone: boolean,
  ) {}

  send(m: InboxWsServerMessage): void {
    if (m.type === 'event') return this.sendEvent(m.room, m as RoomEvent);
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(JSON.stringify(m));
  }

  /** A room event, as a text frame shared with the room's other sockets (eventFrame). */
  sendEvent(room: string, e: RoomEvent): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(eventFrame(room, e, this.showPhone), { binary: false });
  }
}

/**
 * `/ws`: the inbox websocket (spec 4, docs/decisions/0035-inbox.md). A browser connects with `?access_token=`, joins
 * rooms (`{type:'join', room, since?}`); each join is asked of the inbox service with the caller's own token (tenant and
 * permission checks live there, with the data), which also answers what was missed since `since`. Room events come
 * from the realtime driver (NATS in distributed mode: any gateway replica serves any agent) and are delivered in
 * sequence order per room: a duplicate is dropped, a gap is filled from the inbox's replay log, too old a gap is a
 * `reset`.
 */
@Injectable()
export class InboxSocketService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('InboxSocket');
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  private readonly connections = new Set<Connection>();
  private server: Server | null = null;
  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head);

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly realtime: RealtimeFanout,
    private readonly verifier: TokenVerifier,
    @Inject(GATEWAY_OPTIONS) private readonly options: GatewayOptions,
    @Optional() private readonly revocations?: RevocationList,
  ) {}

  get open(): number {
    return this.connections.size;
  }

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) return;
    this.server = server;
    server.on('upgrade', this.onUpgrade);
  }

  async onModuleDestroy(): Promise<void> {
    this.server?.off('upgrade', this.onUpgrade);
    for (const c of [...this.connections]) await this.close(c, 1001, 'server shutting down');
    this.wss.close();
  }

  private inboxBase(): string | null {
    if (this.options.mode === 'distributed') {
      const route = this.options.routes?.inbox;
      return route ? poolFor(route).pick().href.replace(/\/$/, '') : null;
    }
    const addr = this.server?.address() as AddressInfo | null;
    return addr ? `http://127.0.0.1:${addr.port}` : null;
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== INBOX_WS_PATH && url.pathname !== `/api${INBOX_WS_PATH}`) return; // not ours: another upgrade handler's
    const refuse = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: application/json\r\n\r\n${JSON.stringify({ code: status === 401 ? '0x14' : '0x0', message: text, status })}`);
    };
    const auth = req.headers.authorization;
    const token = url.searchParams.get('access_token') ?? (auth?.startsWith('Bearer ') ? auth.slice(7) : null);
    if (!token) return refuse(401, 'missing token');
    let claims;
    try {
      claims = this.verifier.verifyAccess(token);
      this.revocations?.assertNotRevoked(claims);
    } catch {
      return refuse(401, 'invalid or expired access token');
    }
    if (!claims.acc) return refuse(401, 'the token carries no account');
    const accountId = String(claims.acc);
    const exp = (claims as { exp?: number }).exp;
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const c = new Connection(ws, token, accountId, claims.sa === true || (claims.perms ?? []).includes('INBOX_SHOW_PHONE'));
      this.connections.add(c);
      if (exp) {
        const ms = Math.min(exp * 1000 - Date.now(), MAX_TIMER_MS);
        c.expiry = setTimeout(() => void this.close(c, 4401, 'token expired'), Math.max(ms, 0));
        c.expiry.unref();
      }
      ws.on('message', (data: RawData) => void this.onMessage(c, data).catch((e: unknown) => this.log.warn(`ws message: ${String(e)}`)));
      ws.on('close', () => void this.close(c));
      ws.on('error', () => void this.close(c));
    });
  }

  private async close(c: Connection, code?: number, reason?: string): Promise<void> {
    if (c.closed) return;
    c.closed = true;
    this.connections.delete(c);
    if (c.expiry) clearTimeout(c.expiry);
    for (const [, r] of c.rooms) {
      if (r.gapTimer) clearTimeout(r.gapTimer);
      await r.unsubscribe?.().catch(() => undefined);
    }
    c.rooms.clear();
    if (code && c.socket.readyState === c.socket.OPEN) c.socket.close(code, reason);
  }

  private async onMessage(c: Connection, data: RawData): Promise<void> {
    let m: InboxWsClientMessage;
    try {
      m = JSON.parse(data.toString()) as InboxWsClientMessage;
    } catch {
      return c.send({ type: 'error', room: null, code: 'INVALID', message: 'messages are JSON' });
    }
    if (m?.type === 'ping') return c.send({ type: 'pong' });
    if (m?.type === 'leave' && typeof m.room === 'string') {
      const r = c.rooms.get(m.room);
      if (r) {
        c.rooms.delete(m.room);
        if (r.gapTimer) clearTimeout(r.gapTimer);
        await r.unsubscribe?.();
      }
      return c.send({ type: 'left', room: m.room });
    }
    if (m?.type !== 'join' || typeof m.room !== 'string' || !ROOM.test(m.room)) {
      return c.send({ type: 'error', room: typeof (m as { room?: unknown })?.room === 'string' ? (m as { room: string }).room : null, code: 'INVALID', message: 'join a room: account:<id>, space:<id>, team:<id>, agent:<id> or conversation:<uuid>' });
    }
    const since = m.since === undefined || m.since === null ? null : Number(m.since);
    if (since !== null && (!Number.isInteger(since) || since < 0)) return c.send({ type: 'error', room: m.room, code: 'INVALID', message: 'since is the last seq seen' });
    if (c.rooms.has(m.room)) return c.send({ type: 'error', room: m.room, code: 'INVALID', message: 'already joined' });
    if (c.rooms.size >= MAX_ROOMS) return c.send({ type: 'error', room: m.room, code: 'INVALID', message: `at most ${MAX_ROOMS} rooms` });
    await this.join(c, m.room, since);
  }

  private subject(accountId: string, room: string): string {
    const [kind, id] = room.split(':');
    return realtimeSubject(accountId, WS_TOPIC, kind, id);
  }

  private async join(c: Connection, room: string, since: number | null): Promise<void> {
    const state = new RoomState();
    c.rooms.set(room, state);
    // subscribe first and hold what arrives, so nothing falls between the replay and the live events
    state.unsubscribe = await this.realtime.subscribe(this.subject(c.accountId, room), (msg: RealtimeMessage) => this.live(c, room, state, msg));
    const answer = await this.ask(c, room, since);
    if (c.closed || c.rooms.get(room) !== state) return;
    if ('error' in answer) {
      c.rooms.delete(room);
      await state.unsubscribe();
      c.send({ type: 'error', room, code: answer.error, message: answer.message });
      if (answer.error === 'NOT_AUTHENTICATED') await this.close(c, 4401, answer.message);
      return;
    }
    if (answer.reset) {
      c.send({ type: 'reset', room, seq: answer.seq });
    } else {
      for (const e of answer.events) c.sendEvent(room, e);
      c.send({ type: 'joined', room, seq: answer.seq });
    }
    state.next = answer.seq + 1;
    state.ready = true;
    const held = state.held;
    state.held = [];
    for (const e of held) this.accept(c, room, state, e);
  }

  private live(c: Connection, room: string, state: RoomState, msg: RealtimeMessage): void {
    if (msg.accountId !== c.accountId) return;
    const e = msg.data as RoomEvent;
    if (!e || typeof e.seq !== 'number' || e.room !== room) return;
    if (!state.ready) state.held.push(e);
    else this.accept(c, room, state, e);
  }

  /** In order: the next number goes out (and what waited behind it), an old one is a duplicate, a later one waits for the gap. */
  private accept(c: Connection, room: string, state: RoomState, e: RoomEvent): void {
    if (e.seq < state.next) return;
    if (e.seq > state.next) {
      state.pending.set(e.seq, e);
      if (!state.gapTimer && !state.filling) {
        state.gapTimer = setTimeout(() => void this.fill(c, room, state), GAP_WAIT_MS);
        state.gapTimer.unref();
      }
      return;
    }
    c.sendEvent(room, e);
    state.next = e.seq + 1;
    while (state.pending.has(state.next)) {
      const n = state.pending.get(state.next) as RoomEvent;
      state.pending.delete(state.next);
      c.sendEvent(room, n);
      state.next++;
    }
    for (const k of state.pending.keys()) if (k < state.next) state.pending.delete(k);
    if (!state.pending.size && state.gapTimer) {
      clearTimeout(state.gapTimer);
      state.gapTimer = null;
    }
  }

  /** A number is missing for a while: read it from the inbox's replay log. */
  private async fill(c: Connection, room: string, state: RoomState): Promise<void> {
    state.gapTimer = null;
    if (c.closed || !state.pending.size) return;
    state.filling = true;
    try {
      const answer = await this.ask(c, room, state.next - 1);
      if ('error' in answer) return;
      if (answer.reset) {
        c.send({ type: 'reset', room, seq: answer.seq });
        state.next = answer.seq + 1;
        state.pending.clear();
        return;
      }
      for (const e of answer.events) this.accept(c, room, state, e);
    } finally {
      state.filling = false;
    }
  }

  private async ask(c: Connection, room: string, since: number | null): Promise<JoinAnswer | { error: 'NO_PERMISSIONS' | 'NOT_FOUND' | 'INVALID' | 'NOT_AUTHENTICATED'; message: string }> {
    const base = this.inboxBase();
    if (!base) return { error: 'NOT_FOUND', message: 'the inbox service is not reachable from this gateway' };
    try {
      const res = await fetch(`${base}/api/inbox/ws/join`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ room, since }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await res.json().catch(() => ({}))) as { message?: string } & Partial<JoinAnswer>;
      if (res.ok) return body as JoinAnswer;
      const error = res.status === 401 ? 'NOT_AUTHENTICATED' : res.status === 403 ? 'NO_PERMISSIONS' : res.status === 404 ? 'NOT_FOUND' : 'INVALID';
      return { error, message: body.message ?? `refused (${res.status})` };
    } catch (e) {
      return { error: 'INVALID', message: `the inbox service did not answer: ${String(e)}` };
    }
  }
}
