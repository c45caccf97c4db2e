import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer, type WebSocket as Socket } from 'ws';
import type { InboxWsClientMessage, InboxWsServerMessage } from '@switchboard/contracts/src/inbox';
import type { LiveEnvelope } from '../types';
import { backoff, InboxLive, type LiveState } from './client';

/**
 * A local server speaking the inbox websocket protocol of libs/contracts/src/inbox.ts: per-room sequences, a replay
 * window for `since`, `reset` when `since` fell out of it, `error` for a room the caller may not join. Like a real
 * gateway replica it drops connections (a deploy, a network change) and may replay an event twice.
 */
class PeerServer {
  readonly wss: WebSocketServer;
  readonly log = new Map<string, InboxWsServerMessage[]>();
  readonly joins: Array<Extract<InboxWsClientMessage, { type: 'join' }> & { token: string | null }> = [];
  readonly sockets = new Set<Socket>();
  /** Replays from `since - overlap` (a replica that is not sure what it sent). */
  overlap = 0;
  /** The oldest sequence still replayable. */
  windowStart = 1;
  forbidden = new Set<string>();

  readonly ready: Promise<void>;

  constructor() {
    this.wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    this.ready = new Promise((r) => this.wss.once('listening', () => r()));
    this.wss.on('connection', (ws, req) => {
      const token = new URL(req.url ?? '/', 'http://x').searchParams.get('access_token');
      this.sockets.add(ws);
      ws.on('close', () => this.sockets.delete(ws));
      ws.on('message', (raw) => {
        const msg = JSON.parse(String(raw)) as InboxWsClientMessage;
        if (msg.type !== 'join') return;
        this.joins.push({ ...msg, token });
        if (this.forbidden.has(msg.room)) {
          ws.send(JSON.stringify({ type: 'error', room: msg.room, code: 'NO_PERMISSIONS', message: 'not your room' } satisfies InboxWsServerMessage));
          return;
        }
        (ws as Socket & { rooms?: Set<string> }).rooms = new Set([...((ws as Socket & { rooms?: Set<string> }).rooms ?? []), msg.room]);
        const events = this.log.get(msg.room) ?? [];
        const head = events.length;
        if (msg.since !== undefined && msg.since + 1 < this.windowStart) {
          ws.send(JSON.stringify({ type: 'reset', room: msg.room, seq: head } satisfies InboxWsServerMessage));
          return;
        }
        ws.send(JSON.stringify({ type: 'joined', room: msg.room, seq: msg.since ?? head } satisfies InboxWsServerMessage));
        if (msg.since !== undefined) for (const e of events.slice(Math.max(0, msg.since - this.overlap))) ws.send(JSON.stringify(e));
      });
    });
  }

  get url() {
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}/ws`;
  }

  /** Records an event in the room and sends it to the connected members. */
  emit(room: string, n: number) {
    const events = this.log.get(room) ?? [];
    const msg: InboxWsServerMessage = {
      type: 'event',
      room,
      seq: events.length + 1,
      event: 'space_statistics',
      payload: { space_id: 1, totals: { all: n, active: 0, unanswered: 0, closed: 0, my_closed: 0, assigned_to_me: 0 } },
      at: new Date().toISOString(),
    };
    events.push(msg);
    this.log.set(room, events);
    for (const ws of this.sockets) if ((ws as Socket & { rooms?: Set<string> }).rooms?.has(room)) ws.send(JSON.stringify(msg));
  }

  dropAll() {
    for (const ws of this.sockets) ws.terminate();
  }

  close() {
    return new Promise<void>((r) => this.wss.close(() => r()));
  }
}

const until = async (cond: () => boolean, ms = 10000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('the inbox websocket client', () => {
  beforeAll(() => {
    (globalThis as unknown as { WebSocket: unknown }).WebSocket = WebSocket;
  });
  let server: PeerServer;
  let client: InboxLive | null = null;
  afterEach(async () => {
    client?.stop();
    client = null;
    await server?.close();
  });

  const start = (extra: Partial<ConstructorParameters<typeof InboxLive>[0]> = {}) => {
    const got: LiveEnvelope[] = [];
    const states: LiveState[] = [];
    const gaps: string[] = [];
    const joined: string[] = [];
    const refused: string[] = [];
    let tokens = 0;
    client = new InboxLive({
      url: server.url,
      token: async () => `token-${++tokens}`,
      onEvents: (events) => got.push(...events),
      onState: (s) => states.push(s),
      onGap: (room) => gaps.push(room),
      onJoined: (room) => joined.push(room),
      onRefused: (room, code) => refused.push(`${room}:${code}`),
      ...extra,
    });
    client.start();
    return { got, states, gaps, joined, refused };
  };

  it('joins its rooms with a fresh token and delivers the room’s events in order', async () => {
    server = new PeerServer();
    await server.ready;
    const { got, states } = start();
    client!.join('space:1');
    await until(() => server.joins.length === 1);
    expect(server.joins[0]).toMatchObject({ type: 'join', room: 'space:1', token: 'token-1' });
    for (let i = 1; i <= 5; i++) server.emit('space:1', i);
    await until(() => got.length === 5);
    expect(got.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(states).toEqual(['connecting', 'open']);
  });

  it('reconnects after the connection drops and resumes from the last event: nothing missed, nothing twice', async () => {
    server = new PeerServer();
    await server.ready;
    server.overlap = 2; // the replica replays two events the client already has
    const { got, states } = start();
    client!.join('space:1');
    await until(() => server.joins.length === 1);
    for (let i = 1; i <= 3; i++) server.emit('space:1', i);
    await until(() => got.length === 3);

    server.dropAll();
    // events while the agent is offline
    for (let i = 4; i <= 6; i++) server.emit('space:1', i);
    await until(() => server.joins.length === 2);
    expect(server.joins[1]).toMatchObject({ room: 'space:1', since: 3, token: 'token-2' });
    server.emit('space:1', 7);
    await until(() => got.length >= 7);
    await new Promise((r) => setTimeout(r, 150));
    expect(got.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(states).toEqual(['connecting', 'open', 'reconnecting', 'open']);
  });

  it('tells the screen when a room is first joined (what came before is not replayed), not when it resumes', async () => {
    server = new PeerServer();
    await server.ready;
    const { got, joined } = start();
    client!.join('space:1');
    await until(() => joined.length === 1);
    expect(joined).toEqual(['space:1']);
    server.emit('space:1', 1);
    await until(() => got.length === 1);
    server.dropAll();
    await until(() => server.joins.length === 2);
    server.emit('space:1', 2);
    await until(() => got.length === 2);
    // the resume replays from the last event: nothing for the screen to load again
    expect(joined).toEqual(['space:1']);
  });

  it('tells the screen to reload when the server cannot replay that far back', async () => {
    server = new PeerServer();
    await server.ready;
    const { got, gaps } = start();
    client!.join('space:1');
    await until(() => server.joins.length === 1);
    server.emit('space:1', 1);
    await until(() => got.length === 1);
    server.dropAll();
    for (let i = 2; i <= 10; i++) server.emit('space:1', i);
    server.windowStart = 8; // events 2..7 are gone from the replay window
    await until(() => gaps.length === 1);
    expect(gaps).toEqual(['space:1']);
    // and goes on from the server's sequence
    server.emit('space:1', 11);
    await until(() => got.length === 2);
    expect(got.map((e) => e.seq)).toEqual([1, 11]);
  });

  it('gives up a room the server refuses (another space or account) and reports it', async () => {
    server = new PeerServer();
    await server.ready;
    server.forbidden.add('space:2');
    const { refused } = start();
    client!.join('space:2');
    await until(() => refused.length === 1);
    expect(refused).toEqual(['space:2:NO_PERMISSIONS']);
    server.dropAll();
    await until(() => server.sockets.size === 1);
    await new Promise((r) => setTimeout(r, 100));
    // not asked for again on reconnect
    expect(server.joins.filter((j) => j.room === 'space:2')).toHaveLength(1);
  });

  it('backs off from 0.5 s doubling to at most 15 s', () => {
    expect(backoff(0, () => 1)).toBe(500);
    expect(backoff(1, () => 1)).toBe(1000);
    expect(backoff(3, () => 1)).toBe(4000);
    expect(backoff(10, () => 1)).toBe(15000);
    expect(backoff(0, () => 0)).toBe(350);
  });
});
