import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  COMPLETE_SSO_EVENT,
  SSO_REALTIME_ACCOUNT,
  SSO_REALTIME_TOPIC,
  SSO_WS_PATH,
  realtimeSubject,
  type SsoAwaitAnswer,
  type SsoWsServerMessage,
} from '@switchboard/contracts';
import { RealtimeFanout } from '@switchboard/platform';
import { poolFor } from '../proxy/upstreams';
import { GATEWAY_OPTIONS, type GatewayOptions } from '../gateway.options';

const MAX_TIMER_MS = 2 ** 31 - 1;
type Asked = { ok: SsoAwaitAnswer } | { status: number; message: string };

class Waiter {
  closed = false;
  finished = false;
  asking: Promise<void> | null = null;
  timer: NodeJS.Timeout | null = null;
  unsubscribe: (() => Promise<void>) | null = null;
  socket: WebSocket | null = null;
  constructor(
    readonly crossKey: string,
    readonly cookie: string,
    readonly connection: string,
  ) {}
}

/**
 * `/ws/sso?cross_key=…`: the socket the /zoho-sso page waits on for `complete-sso` (spec 7 Auth; docs/decisions/0042).
 * No access token exists yet: the socket is opened by the cross_key together with the browser's binding cookie, both
 * checked by auth (`POST /api/sso/crossdomain_auth/await`, the cookie forwarded), and the first socket claims the
 * flow. The realtime driver only says "flow done" (topic `sso`, account token 0, NATS in distributed mode, so any
 * replica serves the page); the tokens are then asked of auth over HTTP, redeemed once, and sent on this socket only.
 */
@Injectable()
export class SsoSocketService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('SsoSocket');
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1024 });
  private readonly waiters = new Set<Waiter>();
  private server: Server | null = null;
  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.upgrade(req, socket, head).catch((e: unknown) => {
    this.log.warn(`sso socket: ${String(e)}`);
    socket.destroy();
  });

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly realtime: RealtimeFanout,
    @Inject(GATEWAY_OPTIONS) private readonly options: GatewayOptions,
  ) {}

  get open(): number {
    return this.waiters.size;
  }

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) return;
    this.server = server;
    server.on('upgrade', this.onUpgrade);
  }

  async onModuleDestroy(): Promise<void> {
    this.server?.off('upgrade', this.onUpgrade);
    for (const w of [...this.waiters]) await this.end(w, 1001, 'server shutting down');
    this.wss.close();
  }

  private authBase(): string | null {
    if (this.options.mode === 'distributed') {
      const route = this.options.routes?.auth;
      return route ? poolFor(route).pick().href.replace(/\/$/, '') : null;
    }
    const addr = this.server?.address() as AddressInfo | null;
    return addr ? `http://127.0.0.1:${addr.port}` : null;
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== SSO_WS_PATH && url.pathname !== `/api${SSO_WS_PATH}`) return; // another upgrade handler's
    const refuse = (status: number, message: string): void =>
      void socket.end(`HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : status === 409 ? 'Conflict' : 'Bad Gateway'}\r\nConnection: close\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n\r\n${JSON.stringify({ code: status === 404 ? 'NOT_FOUND' : status === 409 ? 'CONFLICT' : '0x0', message, status })}`);
    const w = new Waiter(url.searchParams.get('cross_key') ?? '', req.headers.cookie ?? '', randomBytes(18).toString('base64url'));
    // claimed before the upgrade: an unknown key, another browser's key or a second socket get an HTTP refusal
    const first = await this.ask(w);
    if ('status' in first) return refuse(first.status, first.message);
    let flow = first.ok.flow;
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      w.socket = ws;
      this.waiters.add(w);
      ws.on('close', () => void this.end(w));
      ws.on('error', () => void this.end(w));
      ws.on('message', (d) => {
        if (d.toString() === '{"type":"ping"}') ws.send('{"type":"pong"}');
      });
      void (async () => {
        if (first.ok.state === 'done') return this.deliver(w, first.ok);
        flow = first.ok.flow;
        this.send(w, { type: 'waiting', expires_in: first.ok.expires_in });
        // subscribe, then ask again: a callback finished between the two asks is not missed
        w.unsubscribe = await this.realtime.subscribe(realtimeSubject(SSO_REALTIME_ACCOUNT, SSO_REALTIME_TOPIC, flow), () => void this.settle(w));
        if (w.closed) return void (await w.unsubscribe());
        const ms = Math.min(first.ok.expires_in * 1000 + 1000, MAX_TIMER_MS);
        w.timer = setTimeout(() => void this.settle(w), ms);
        w.timer.unref();
        await this.settle(w);
      })().catch((e: unknown) => {
        this.log.warn(`sso socket: ${String(e)}`);
        void this.end(w, 1011, 'internal error');
      });
    });
  }

  /** Asks auth once at a time per socket; a `done` answer is delivered and the socket closes. */
  private settle(w: Waiter): Promise<void> {
    if (w.closed || w.finished) return Promise.resolve();
    if (w.asking) return w.asking.then(() => this.settle(w));
    w.asking = (async () => {
      const a = await this.ask(w);
      if ('status' in a) {
        this.send(w, { type: 'error', code: a.status === 409 ? 'CONFLICT' : a.status === 404 ? 'NOT_FOUND' : 'UNAVAILABLE', message: a.message });
        return this.end(w, 4400, a.message.slice(0, 100));
      }
      if (a.ok.state === 'done') await this.deliver(w, a.ok);
    })().finally(() => {
      w.asking = null;
    });
    return w.asking;
  }

  private async deliver(w: Waiter, a: SsoAwaitAnswer & { state: 'done' }): Promise<void> {
    w.finished = true;
    this.send(w, { type: COMPLETE_SSO_EVENT, data: a.data });
    await this.end(w, 1000, 'complete');
  }

  private send(w: Waiter, m: SsoWsServerMessage): void {
    if (w.closed || !w.socket || w.socket.readyState !== w.socket.OPEN) return;
    w.socket.send(JSON.stringify(m));
  }

  private async end(w: Waiter, code?: number, reason?: string): Promise<void> {
    if (w.closed) return;
    w.closed = true;
    this.waiters.delete(w);
    if (w.timer) clearTimeout(w.timer);
    await w.unsubscribe?.().catch(() => undefined);
    if (code && w.socket && w.socket.readyState === w.socket.OPEN) w.socket.close(code, reason);
  }

  private async ask(w: Waiter): Promise<Asked> {
    const base = this.authBase();
    if (!base) return { status: 502, message: 'the auth service is not reachable from this gateway' };
    try {
      const res = await fetch(`${base}/api/sso/crossdomain_auth/await`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(w.cookie ? { cookie: w.cookie } : {}) },
        body: JSON.stringify({ cross_key: w.crossKey, connection: w.connection }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await res.json().catch(() => ({}))) as { message?: string };
      if (res.ok) return { ok: body as SsoAwaitAnswer };
      // a malformed key is "not found" like an unknown one
      const status = res.status === 400 ? 404 : res.status === 404 || res.status === 409 ? res.status : 502;
      return { status, message: body.message ?? `refused (${res.status})` };
    } catch (e) {
      return { status: 502, message: `the auth service did not answer: ${String(e)}` };
    }
  }
}
