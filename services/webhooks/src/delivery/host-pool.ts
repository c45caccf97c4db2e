import * as net from 'node:net';
import * as tls from 'node:tls';
import type { CheckedDestination } from '@switchboard/platform';
import { CONNECTION_TIMEOUT, type Outcome } from './http-sender';

// llhttp, the parser node:http itself uses (a response parser per connection; it handles chunked bodies, 1xx, 204/304
// without body, close-delimited bodies, several answers in one read)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { HTTPParser } = require('node:_http_common') as { HTTPParser: HttpParserCtor };

interface HttpParser {
  initialize(type: number, resource: object, maxHeaderSize?: number, lenient?: number): void;
  execute(b: Buffer): number | Error;
  finish(): number | Error | undefined;
  close(): void;
  [k: number]: unknown;
}
interface HttpParserCtor {
  new (): HttpParser;
  RESPONSE: number;
  kOnHeaders: number;
  kOnHeadersComplete: number;
  kOnBody: number;
  kOnMessageComplete: number;
  kOnExecute: number;
}

/** One request to send: head fields and body; the outcome resolves exactly once. */
export interface PooledRequest {
  method: 'GET' | 'POST';
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

interface Pending {
  head: string;
  body: string;
  resolve: (o: Omit<Outcome, 'durationMs'>) => void;
  timer: NodeJS.Timeout | null;
  /** Written to a socket: from then on its answer is read from that socket only (never sent a second time). */
  conn: Connection | null;
  status: number;
  headers: Record<string, string>;
  chunks: Buffer[];
  size: number;
  done: boolean;
}

export interface HostPoolOptions {
  /** Connections to the destination at most. */
  maxSockets: number;
  /** Requests in flight on one connection (HTTP/1.1 pipelining); 1: one at a time. */
  pipelining: number;
  timeoutMs: number;
  maxBytes: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * A keep-alive pool of HTTP/1.1 connections to ONE checked destination (address, port, TLS name): docs/decisions/0069.
 * Lean where node:http is heavy per request (an outgoing and an incoming message stream, agent bookkeeping): a request
 * is one buffer written to the socket, its answer parsed by llhttp. The socket connects to the checked address only
 * (never DNS: `address` is what the SSRF guard checked); the Host header and TLS name are the URL's host.
 *
 * Exactly once per attempt: a request is written to one socket at most. If that socket ends before its answer, the
 * attempt fails (`ECONNRESET`): the receiver may have seen it, so it is not written again; the retry schedule sends
 * it again as the next attempt under the same webhook-id. That holds for requests pipelined behind an answer saying
 * `Connection: close` too (RFC 9112 §9.6 says the server did not process them; node:http servers, for one, do).
 * Requests not yet written (waiting for a connection) never reached the receiver and are written once a connection
 * is free. With `pipelining` > 1 the requests queued for one connection in the same turn go out in one write.
 */
export class HostPool {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly waiting: Pending[] = [];
  private closed = false;

  constructor(
    private readonly dest: Pick<CheckedDestination, 'address' | 'port' | 'host'> & { tls: boolean },
    private readonly o: HostPoolOptions,
  ) {}

  get size(): number {
    return this.all.size;
  }

  /** Sends one request; never rejects (a socket error, a timeout, a refused header are outcomes). */
  send(r: PooledRequest): Promise<Omit<Outcome, 'durationMs'>> {
    return new Promise((resolve) => {
      const bad = invalidHeader(r.headers);
      if (bad) return resolve({ status: 'failed', error: 'E-INVALID-HEADER', response: { status: 0, headers: {}, body: bad } });
      const p: Pending = { head: this.head(r), body: r.body, resolve, timer: null, conn: null, status: 0, headers: {}, chunks: [], size: 0, done: false };
      p.timer = setTimeout(() => this.timeout(p), this.o.timeoutMs);
      this.waiting.push(p);
      this.dispatch();
    });
  }

  close(): void {
    this.closed = true;
    for (const c of [...this.all]) c.destroy(null);
    for (const p of this.waiting.splice(0)) finish(p, { status: 'failed', error: 'E-CONNECTION', response: null });
  }

  private head(r: PooledRequest): string {
    const hostHeader = this.hostHeader();
    let h = `${r.method} ${r.path} HTTP/1.1\r\nhost: ${hostHeader}\r\n`;
    for (const k in r.headers) {
      const l = k.toLowerCase();
      if (l === 'host' || l === 'content-length' || l === 'connection' || l === 'transfer-encoding') continue;
      h += `${k}: ${r.headers[k]}\r\n`;
    }
    if (r.method === 'POST') h += `content-length: ${Buffer.byteLength(r.body)}\r\n`;
    return `${h}connection: keep-alive\r\n\r\n`;
  }

  private hostHeaderValue: string | null = null;
  private hostHeader(): string {
    if (this.hostHeaderValue === null) {
      const name = net.isIPv6(this.dest.host) ? `[${this.dest.host}]` : this.dest.host;
      const dflt = this.dest.tls ? 443 : 80;
      this.hostHeaderValue = this.dest.port === dflt ? name : `${name}:${this.dest.port}`;
    }
    return this.hostHeaderValue;
  }

  /** Gives waiting requests connections: an idle one, a new one (up to maxSockets), else pipelined on the least busy. */
  private dispatching = false;

  private dispatch(): void {
    // a connection found dead here calls back into dispatch (its requests requeued): the loop below picks them up
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      while (this.waiting.length && !this.closed) {
        let c = this.idle.pop();
        while (c && c.expired()) {
          c.destroy(null);
          c = this.idle.pop();
        }
        if (!c && this.all.size < this.o.maxSockets) c = this.open();
        if (!c && this.o.pipelining > 1) {
          for (const x of this.all) if (x.usable && x.inFlight < this.o.pipelining && (!c || x.inFlight < c.inFlight)) c = x;
        }
        if (!c) return;
        c.enqueue(this.waiting.shift() as Pending);
      }
    } finally {
      this.dispatching = false;
    }
  }

  private open(): Connection {
    const c = new Connection(this.dest, this.o, {
      idle: (x) => {
        if (this.closed) return x.destroy(null);
        this.idle.push(x);
        this.dispatch();
      },
      more: () => this.dispatch(),
      gone: (x, unsent) => {
        this.all.delete(x);
        const i = this.idle.indexOf(x);
        if (i >= 0) this.idle.splice(i, 1);
        // never written: they go to another connection
        this.waiting.unshift(...unsent.filter((p) => !p.done));
        this.dispatch();
      },
    });
    this.all.add(c);
    return c;
  }

  private timeout(p: Pending): void {
    if (p.done) return;
    finish(p, { status: 'timeout', error: CONNECTION_TIMEOUT, response: null });
    const i = this.waiting.indexOf(p);
    if (i >= 0) this.waiting.splice(i, 1);
    // its connection's answers are in order: a request given up on cannot be skipped, the connection goes
    else p.conn?.destroy('ECONNRESET');
  }
}

function invalidHeader(h: Record<string, string>): string | null {
  for (const k in h) {
    if (!TOKEN.test(k)) return `invalid header name ${JSON.stringify(k)}`;
    if (BAD_VALUE.test(String(h[k]))) return `invalid value of header ${k}`;
  }
  return null;
}

function finish(p: Pending, o: Omit<Outcome, 'durationMs'>): void {
  if (p.done) return;
  p.done = true;
  if (p.timer) clearTimeout(p.timer);
  p.resolve(o);
}

function answered(p: Pending, error: string | null): void {
  const response = { status: p.status, headers: p.headers, body: p.chunks.length === 1 ? p.chunks[0].toString('utf8') : Buffer.concat(p.chunks).toString('utf8') };
  if (error) return finish(p, { status: 'failed', error, response });
  finish(p, p.status >= 200 && p.status < 300 ? { status: 'success', error: null, response } : { status: 'failed', error: `HTTP_${p.status}`, response });
}

interface ConnectionEvents {
  idle: (c: Connection) => void;
  /** Answers came while others are in flight: room for pipelined requests. */
  more: (c: Connection) => void;
  /** The connection is gone; `unsent`: its requests that the receiver has not processed (to send elsewhere). */
  gone: (c: Connection, unsent: Pending[]) => void;
}

class Connection {
  private readonly socket: net.Socket;
  private readonly parser: HttpParser;
  /** Written, answers expected in this order. */
  private readonly sent: Pending[] = [];
  /** Assigned before the socket is connected or within this turn: written together. */
  private outbox: Pending[] = [];
  private flushing = false;
  private connected = false;
  private dead = false;
  /** The server said `Connection: close` (or answered HTTP/1.0 without keep-alive): write nothing more. */
  private closing = false;
  private idleUntil = Infinity;
  private keepAliveMs = 0;
  private bad = false;
  private capped = false;
  /** The answer saying `Connection: close` is complete: nothing more comes on this connection. */
  private ended = false;

  constructor(
    dest: Pick<CheckedDestination, 'address' | 'port' | 'host'> & { tls: boolean },
    private readonly o: HostPoolOptions,
    private readonly events: ConnectionEvents,
  ) {
    const onConnect = () => {
      this.connected = true;
      this.socket.setNoDelay(true);
      this.flush();
    };
    if (dest.tls) {
      this.socket = tls.connect({ host: dest.address, port: dest.port, servername: net.isIP(dest.host) ? undefined : dest.host, ALPNProtocols: ['http/1.1'] }, onConnect);
    } else this.socket = net.connect({ host: dest.address, port: dest.port }, onConnect);
    this.parser = new HTTPParser();
    this.parser.initialize(HTTPParser.RESPONSE, {}, 0, 0);
    let extra: string[] = [];
    this.parser[HTTPParser.kOnHeaders] = (h: string[]) => {
      extra = extra.concat(h);
    };
    this.parser[HTTPParser.kOnHeadersComplete] = (_maj: number, _min: number, raw: string[] | undefined, _m: unknown, _u: unknown, status: number, _sm: string, _up: boolean, keepAlive: boolean) => {
      const list = extra.length ? extra.concat(raw ?? []) : (raw ?? []);
      extra = [];
      const p = this.sent[0];
      if (!p) {
        // an answer nobody asked for: the connection cannot be trusted (closed once the parser returns)
        this.bad = true;
        return 1;
      }
      if (status < 200) return 0; // 1xx: an interim answer, the final one follows
      p.status = status;
      const headers: Record<string, string> = {};
      for (let i = 0; i < list.length; i += 2) {
        const k = list[i].toLowerCase();
        headers[k] = headers[k] === undefined ? list[i + 1] : `${headers[k]}, ${list[i + 1]}`;
      }
      p.headers = headers;
      if (!keepAlive) this.closing = true;
      const ka = headers['keep-alive'] ? /timeout=(\d+)/i.exec(headers['keep-alive']) : null;
      // like node:http's agent: leave an idle connection a second before the server's announced timeout
      if (ka) this.keepAliveMs = Math.max(0, Number(ka[1]) * 1000 - 1000);
      return 0;
    };
    this.parser[HTTPParser.kOnBody] = (b: Buffer) => {
      const p = this.sent[0];
      if (!p || p.done || p.size >= this.o.maxBytes) return;
      const take = b.length > this.o.maxBytes - p.size ? b.subarray(0, this.o.maxBytes - p.size) : b;
      // a copy: the parser's buffer is the socket's read buffer
      p.chunks.push(Buffer.from(take));
      p.size += take.length;
      // enough read: the rest is not waited for (answered and the connection closed once the parser returns)
      if (p.size >= this.o.maxBytes) this.capped = true;
    };
    this.parser[HTTPParser.kOnMessageComplete] = () => {
      const p = this.sent[0];
      if (!p || p.status === 0) return; // the end of a 1xx
      this.capped = false;
      // the server closes after this answer (llhttp reads nothing after it)
      if (this.closing) this.ended = true;
      this.sent.shift();
      answered(p, null);
      p.conn = null;
    };
    this.parser[HTTPParser.kOnExecute] = () => undefined;
    this.socket.on('data', (b: Buffer) => {
      const r = this.parser.execute(b);
      if (r instanceof Error) return this.destroy('E-BAD-RESPONSE');
      if (this.bad) return this.destroy('E-UNEXPECTED-RESPONSE');
      if (this.capped) {
        answered(this.sent.shift() as Pending, null);
        return this.destroy(null);
      }
      this.afterAnswers();
    });
    this.socket.on('end', () => {
      // a close-delimited body ends here; anything else unanswered was cut off
      const r = this.parser.finish();
      if (r instanceof Error) return this.destroy('ECONNRESET');
      this.destroy('ECONNRESET');
    });
    this.socket.on('error', (e: NodeJS.ErrnoException) => this.destroy(e.code ?? 'E-CONNECTION'));
    this.socket.on('close', () => this.destroy('ECONNRESET'));
  }

  get inFlight(): number {
    return this.sent.length + this.outbox.length;
  }

  get usable(): boolean {
    return !this.dead && !this.closing;
  }

  expired(): boolean {
    return this.dead || this.closing || performance.now() > this.idleUntil;
  }

  enqueue(p: Pending): void {
    p.conn = this;
    this.idleUntil = Infinity;
    this.socket.ref();
    this.outbox.push(p);
    if (!this.connected || this.flushing) return;
    this.flushing = true;
    // requests given to this connection in the same turn go out in one write
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.flushing = false;
    if (this.dead || !this.connected || this.closing || !this.outbox.length) return;
    const batch = this.outbox.filter((p) => !p.done);
    this.outbox = [];
    if (!batch.length) return this.afterAnswers();
    let text = '';
    for (const p of batch) {
      text += p.head;
      text += p.body;
      this.sent.push(p);
    }
    this.socket.write(text);
  }

  /** After answers were read: a connection with nothing in flight is idle again (or closes as the server asked). */
  private afterAnswers(): void {
    if (this.dead) return;
    // the server closes after that answer: requests written behind it fail, those not written go to another connection
    if (this.ended) return this.destroy(null);
    if (this.sent.length || this.outbox.length) return void (this.o.pipelining > 1 && this.events.more(this));
    this.idleUntil = this.keepAliveMs ? performance.now() + this.keepAliveMs : Infinity;
    this.socket.unref();
    this.events.idle(this);
  }

  /** Ends the connection. Requests written and not answered fail with `code` (the receiver may have processed them). */
  destroy(code: string | null): void {
    if (this.dead) return;
    this.dead = true;
    this.socket.destroy();
    this.parser.close();
    const unsent = this.outbox.splice(0);
    if (!this.connected) {
      // no connection was made (refused, unreachable): the attempts fail with the socket error, as a request would
      for (const p of unsent.splice(0)) finish(p, { status: 'failed', error: code ?? 'E-CONNECTION', response: null });
    }
    for (const p of this.sent.splice(0)) {
      p.conn = null;
      // its head came: the answer is its status, with the body read so far (as node:http's cut response was)
      if (p.status !== 0) answered(p, null);
      // written, not answered: the receiver may have processed it (even behind a `Connection: close` answer, which
      // node:http servers, for one, do): the attempt failed and is not written again
      else finish(p, { status: 'failed', error: code ?? 'ECONNRESET', response: null });
    }
    for (const p of unsent) p.conn = null;
    this.events.gone(this, unsent);
  }
}
