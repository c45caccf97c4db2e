import { STATUS_CODES, type Server as HttpServer } from 'node:http';
import * as net from 'node:net';

/**
 * The redirect's HTTP/1.1 fast path on `node:net` (docs/decisions/0091). node:http builds an IncomingMessage and a
 * ServerResponse with their streams for every request; a redirect reads three headers and writes one short answer, and
 * on this machine node:http's own work was about half of a redirect's CPU in the redirect process. This parser takes
 * only the plainest requests and hands every other connection, whole, to node:http:
 *
 * - taken: a complete head (request line and headers in what has arrived) of `GET` or `HEAD` with an origin-form target
 *   that `accepts` (the redirect: a code's path), `HTTP/1.1`, a `Host`, header lines `name: value` with token names
 *   and no control characters in values, no body (no `Content-Length`, `Transfer-Encoding`), no `Expect`, `Upgrade`,
 *   and `Connection` absent or `keep-alive`;
 * - anything else (another method or path, HTTP/1.0, a partial head, a head over 16 KiB or of over 100 headers, a
 *   folded or malformed line, a body) hands the connection to `fallback` (node:http) at a request boundary, with the
 *   bytes not yet answered put back in front: node:http parses them and serves that connection from then on, with its
 *   own limits and timeouts. So a request is either parsed by this strict subset or by node:http, never half by each.
 *
 * Answers on a connection go out in request order: while one waits (a link read from PostgreSQL, a full click buffer),
 * the requests behind it wait unparsed. Header values are read as latin1, as node:http does.
 */
export interface FastRequest {
  method: 'GET' | 'HEAD';
  url: string;
  /** Names and values in turn, as node:http's `rawHeaders`. */
  rawHeaders: string[];
  remoteAddress: string | undefined;
}

/** The answer's side of a fast request: node:http's `ServerResponse` calls the redirect uses, and nothing else. */
export interface FastReply {
  readonly destroyed: boolean;
  readonly headersSent: boolean;
  writeHead(status: number, headers: string[]): this;
  end(body?: Buffer): this;
  /**
   * The whole answer from a head built once (docs/decisions/0122): `head` is the status line and the headers, each line
   * ended by CRLF, without `Date` and `Connection`, which are added; no body. Its values must pass `isHeaderValue`.
   */
  endHead(head: string): this;
}

export interface FastHttpOptions {
  /** Whether the fast path answers this request target (else the connection goes to node:http). */
  accepts: (url: string) => boolean;
  handle: (req: FastRequest, reply: FastReply) => void;
  /** node:http: the connections the fast path does not take. It never listens itself. */
  fallback: HttpServer;
  /** An idle keep-alive connection is closed after this long (node:http's keepAliveTimeout). */
  keepAliveMs: number;
}

const MAX_HEAD = 16 * 1024;
/** Bytes of requests read ahead while an answer waits, at most: beyond, the socket stops being read until it is answered. */
const MAX_AHEAD = 64 * 1024;
const MAX_HEADERS = 100;
const REQUEST_LINE = /^(GET|HEAD) (\/[\x21-\x7e]*) HTTP\/1\.1$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value node:http accepts: no control characters but tab. */
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** A header value the fast path writes: no control characters but tab, latin1 (as node:http's check). */
export const isHeaderValue = (value: string): boolean => VALUE.test(value);

/** A header value without the spaces and tabs around it (not String#trim: latin1's no-break space is a value's own). */
function trimOws(s: string, from: number, to: number): string {
  while (from < to && (s.charCodeAt(from) === 32 || s.charCodeAt(from) === 9)) from++;
  while (to > from && (s.charCodeAt(to - 1) === 32 || s.charCodeAt(to - 1) === 9)) to--;
  return s.slice(from, to);
}

let dateSecond = 0;
let dateText = '';
/** The Date header, rebuilt once a second. */
function httpDate(): string {
  const now = Date.now();
  const s = Math.floor(now / 1000);
  if (s !== dateSecond) {
    dateSecond = s;
    dateText = new Date(s * 1000).toUTCString();
  }
  return dateText;
}

export interface FastHttpServer {
  server: net.Server;
  /** Stops keeping connections alive: idle ones are closed now, the others after their answer in flight. */
  closeIdle(): void;
}

/** A `net.Server` speaking the fast subset, `fallback` taking the rest. */
export function createFastHttpServer(options: FastHttpOptions): FastHttpServer {
  const keepAlive = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(options.keepAliveMs / 1000)}\r\n\r\n`;
  const open = new Set<FastConnection>();
  const server = net.createServer({ noDelay: true }, (socket) => {
    const c = new FastConnection(socket, options, keepAlive, open);
    open.add(c);
    socket.once('close', () => open.delete(c));
  });
  return {
    server,
    closeIdle: () => {
      for (const c of open) c.close();
    },
  };
}

class FastConnection {
  private pending = '';
  /** An answer is outstanding: the requests behind it wait. */
  private busy = false;
  /** Inside `drain`'s call of the handler (an answer given synchronously continues the loop instead of re-entering). */
  private inHandler = false;
  private closing = false;
  private handedOff = false;
  private readonly onData = (d: Buffer) => {
    this.pending = this.pending.length === 0 ? d.toString('latin1') : this.pending + d.toString('latin1');
    if (!this.busy && !this.waitingDrain) this.drain();
    else if (this.pending.length > MAX_AHEAD) this.socket.pause();
  };
  /** The answers written are not read yet: no request is parsed (nor read, beyond MAX_AHEAD) until they are. */
  private waitingDrain = false;
  /** The client read its answers: parse what waits. */
  private readonly onDrain = () => {
    this.waitingDrain = false;
    if (this.handedOff) return;
    this.socket.resume();
    if (!this.busy) this.drain();
  };
  private readonly onTimeout = () => this.socket.destroy();
  private readonly onError = () => this.socket.destroy();

  constructor(
    readonly socket: net.Socket,
    private readonly options: FastHttpOptions,
    readonly keepAlive: string,
    private readonly open: Set<FastConnection>,
  ) {
    socket.on('data', this.onData);
    socket.on('error', this.onError);
    socket.setTimeout(options.keepAliveMs, this.onTimeout);
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /** The server closes: an idle connection ends now, a busy one after its answer (`Connection: close`). */
  close(): void {
    this.closing = true;
    if (!this.busy) this.socket.end();
  }

  /** The answer of the request in flight was written: the next one may be parsed. */
  done(): void {
    this.busy = false;
    if (this.closing) {
      this.socket.end();
      return;
    }
    if (this.waitingDrain) return;
    if (this.socket.isPaused()) this.socket.resume();
    if (!this.inHandler && this.pending.length > 0) this.drain();
  }

  private drain(): void {
    while (!this.busy && !this.waitingDrain && this.pending.length > 0 && !this.handedOff) {
      // a client that does not read its answers: stop reading its requests until it does (memory stays bounded)
      if (this.socket.writableNeedDrain) {
        this.waitingDrain = true;
        this.socket.once('drain', this.onDrain);
        this.socket.pause();
        return;
      }
      const end = this.pending.indexOf('\r\n\r\n');
      if (end < 0 || end > MAX_HEAD) return this.handOff();
      const req = this.parse(this.pending.slice(0, end));
      if (!req) return this.handOff();
      this.pending = this.pending.length === end + 4 ? '' : this.pending.slice(end + 4);
      this.busy = true;
      this.inHandler = true;
      try {
        this.options.handle(req, new Reply(this, req.method === 'HEAD'));
      } finally {
        this.inHandler = false;
      }
    }
  }

  /** The request, or null when it is not the fast subset (node:http takes the connection). */
  private parse(head: string): FastRequest | null {
    let eol = head.indexOf('\r\n');
    if (eol < 0) return null;
    const line = REQUEST_LINE.exec(head.slice(0, eol));
    if (!line || !this.options.accepts(line[2])) return null;
    const raw: string[] = [];
    let host = false;
    let start = eol + 2;
    while (start < head.length) {
      eol = head.indexOf('\r\n', start);
      if (eol < 0) eol = head.length;
      const colon = head.indexOf(':', start);
      if (colon <= start || colon > eol || raw.length >= MAX_HEADERS * 2) return null;
      const name = head.slice(start, colon);
      const value = trimOws(head, colon + 1, eol);
      if (!TOKEN.test(name) || !VALUE.test(value)) return null;
      switch (name.length) {
        case 4:
          if (name.toLowerCase() === 'host') host = true;
          break;
        case 6:
          if (name.toLowerCase() === 'expect') return null;
          break;
        case 7:
          if (name.toLowerCase() === 'upgrade') return null;
          break;
        case 10:
          if (name.toLowerCase() === 'connection' && value.toLowerCase() !== 'keep-alive') return null;
          break;
        case 14:
          if (name.toLowerCase() === 'content-length') return null;
          break;
        case 17:
          if (name.toLowerCase() === 'transfer-encoding') return null;
          break;
      }
      raw.push(name, value);
      start = eol + 2;
    }
    if (!host) return null;
    return { method: line[1] as 'GET' | 'HEAD', url: line[2], rawHeaders: raw, remoteAddress: this.socket.remoteAddress };
  }

  /** node:http serves this connection from here on, starting with the bytes not answered yet. */
  private handOff(): void {
    this.handedOff = true;
    const s = this.socket;
    s.removeListener('data', this.onData);
    s.removeListener('error', this.onError);
    s.removeListener('timeout', this.onTimeout);
    s.removeListener('drain', this.onDrain);
    s.setTimeout(0);
    this.open.delete(this);
    if (this.closing) {
      s.destroy();
      return;
    }
    s.pause();
    if (this.pending.length > 0) s.unshift(Buffer.from(this.pending, 'latin1'));
    this.pending = '';
    this.options.fallback.emit('connection', s);
    s.resume();
  }
}

class Reply implements FastReply {
  private status = 0;
  private headers: string[] = [];
  private sent = false;
  private ended = false;

  constructor(
    private readonly c: FastConnection,
    private readonly head: boolean,
  ) {}

  get destroyed(): boolean {
    return this.c.socket.destroyed;
  }

  get headersSent(): boolean {
    return this.sent;
  }

  writeHead(status: number, headers: string[]): this {
    for (let i = 1; i < headers.length; i += 2) if (!VALUE.test(headers[i])) throw new TypeError(`invalid character in header ${headers[i - 1]}`);
    this.status = status;
    this.headers = headers;
    this.sent = true;
    return this;
  }

  endHead(head: string): this {
    if (this.ended) return this;
    this.ended = true;
    this.sent = true;
    const s = this.c.socket;
    // one string, one write: the head built once per link, then the second's Date and the connection's keep-alive
    if (!s.destroyed) s.write(`${head}Date: ${httpDate()}\r\n${this.c.isClosing ? 'Connection: close\r\n\r\n' : this.c.keepAlive}`, 'latin1');
    this.c.done();
    return this;
  }

  end(body?: Buffer): this {
    if (this.ended) return this;
    this.ended = true;
    let text = `HTTP/1.1 ${this.status} ${STATUS_CODES[this.status] ?? 'unknown'}\r\n`;
    for (let i = 0; i + 1 < this.headers.length; i += 2) text += `${this.headers[i]}: ${this.headers[i + 1]}\r\n`;
    text += `Date: ${httpDate()}\r\n${this.c.isClosing ? 'Connection: close\r\n\r\n' : this.c.keepAlive}`;
    const s = this.c.socket;
    if (!s.destroyed) {
      if (body && !this.head && body.length > 0) s.write(Buffer.concat([Buffer.from(text, 'latin1'), body]));
      else s.write(text, 'latin1');
    }
    this.c.done();
    return this;
  }
}
