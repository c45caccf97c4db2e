import { LIVE_DRAIN_MS, LIVE_QUEUE_MAX, RECONNECT_MAX_MS, RECONNECT_MIN_MS } from '../constants';
import { sequenceCheck } from '../model';
import type { InboxWsServerMessage, LiveEnvelope } from '../types';

/** A ping keeps idle proxies from closing the socket. */
const PING_MS = 25_000;

export type LiveState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface LiveOptions {
  /** The bearer token for the connection (fresh on every connect). */
  token: () => Promise<string | null>;
  /** The websocket URL; default: `/ws` on this origin. */
  url?: string;
  onEvents: (events: LiveEnvelope[]) => void;
  onState?: (state: LiveState) => void;
  /** Events were missed and cannot be replayed: the screen reloads what it shows. */
  onGap?: (room: string) => void;
  /**
   * The server took a room's first join (not a resume): events from before it are not replayed, so what the screen
   * loaded before the join may already be behind (a conversation that arrived between the load and the join).
   */
  onJoined?: (room: string) => void;
  /** A join was refused (another space's or account's room). */
  onRefused?: (room: string, code: string) => void;
}

/** The backoff before reconnect attempt `n` (0-based): 0.5 s doubling to 15 s, with up to 30 % jitter. */
export function backoff(n: number, random = Math.random): number {
  const base = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** n);
  return Math.round(base * (0.7 + 0.3 * random()));
}

/**
 * The inbox's websocket (spec 4 "Live connections"): authenticates, joins rooms, and on every reconnect rejoins
 * each room with the last sequence it applied, so the server replays what was missed; a replayed or doubled event
 * (sequence already applied) is dropped and a hole in the sequence reported as a gap. Incoming events are queued and
 * drained every 50 ms (at most 1000 wait; overflow drops and is reported as a gap so the screen reloads).
 */
export class InboxLive {
  private ws: WebSocket | null = null;
  private rooms = new Set<string>();
  private lastSeq = new Map<string, number>();
  private queue: LiveEnvelope[] = [];
  private drainTimer: ReturnType<typeof setInterval> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private attempts = 0;
  private stopped = false;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private state: LiveState = 'closed';

  constructor(private readonly opts: LiveOptions) {}

  start(): void {
    this.stopped = false;
    this.drainTimer ??= setInterval(() => this.drain(), LIVE_DRAIN_MS);
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.drainTimer) clearInterval(this.drainTimer);
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.drainTimer = null;
    this.pingTimer = null;
    this.ws?.close(1000);
    this.ws = null;
    this.setState('closed');
  }

  join(room: string): void {
    if (this.rooms.has(room)) return;
    this.rooms.add(room);
    this.send({ type: 'join', room, ...(this.lastSeq.has(room) ? { since: this.lastSeq.get(room) } : {}) });
  }

  leave(room: string): void {
    if (!this.rooms.delete(room)) return;
    this.lastSeq.delete(room);
    this.send({ type: 'leave', room });
  }

  /** Test seam: what the client would ask the server to replay from. */
  resumePoint(room: string): number | undefined {
    return this.lastSeq.get(room);
  }

  private setState(s: LiveState) {
    if (this.state === s) return;
    this.state = s;
    this.opts.onState?.(s);
  }

  private send(msg: Record<string, unknown>) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  private async connect() {
    if (this.stopped) return;
    this.setState(this.attempts === 0 ? 'connecting' : 'reconnecting');
    const token = await this.opts.token().catch(() => null);
    if (this.stopped) return;
    const url = this.opts.url ?? `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
    const ws = new WebSocket(`${url}${token ? `?access_token=${encodeURIComponent(token)}` : ''}`);
    this.ws = ws;
    ws.onopen = () => {
      this.attempts = 0;
      this.pingTimer ??= setInterval(() => this.send({ type: 'ping' }), PING_MS);
      this.setState('open');
      for (const room of this.rooms) this.send({ type: 'join', room, ...(this.lastSeq.has(room) ? { since: this.lastSeq.get(room) } : {}) });
    };
    ws.onmessage = (m) => this.receive(String(m.data));
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      this.setState('reconnecting');
      this.retryTimer = setTimeout(() => void this.connect(), backoff(this.attempts++));
    };
    ws.onerror = () => ws.close();
  }

  private receive(raw: string) {
    let msg: InboxWsServerMessage;
    try {
      msg = JSON.parse(raw) as InboxWsServerMessage;
    } catch {
      return;
    }
    switch (msg.type) {
      case 'error':
        if (msg.room) {
          this.rooms.delete(msg.room);
          this.lastSeq.delete(msg.room);
        }
        this.opts.onRefused?.(msg.room ?? '', msg.code);
        return;
      case 'reset':
        // the server could not replay from our point: reload what the room shows, go on from its sequence
        this.lastSeq.set(msg.room, msg.seq);
        this.opts.onGap?.(msg.room);
        return;
      case 'joined':
        if (this.lastSeq.has(msg.room)) return;
        this.lastSeq.set(msg.room, msg.seq);
        this.opts.onJoined?.(msg.room);
        return;
      case 'event': {
        if (!this.rooms.has(msg.room)) return;
        const verdict = sequenceCheck(this.lastSeq.get(msg.room), msg.seq);
        if (verdict === 'duplicate') return;
        this.lastSeq.set(msg.room, msg.seq);
        if (verdict === 'gap') this.opts.onGap?.(msg.room);
        if (this.queue.length >= LIVE_QUEUE_MAX) {
          this.opts.onGap?.(msg.room);
          return;
        }
        this.queue.push({ event: msg.event, room: msg.room, seq: msg.seq, payload: msg.payload } as LiveEnvelope);
        return;
      }
      default:
        return;
    }
  }

  private drain() {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.opts.onEvents(batch);
  }
}
