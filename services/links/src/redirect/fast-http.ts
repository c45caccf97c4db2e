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
  /** The headers the redirect reads, picked in the pass that checks the head (docs/decisions/0130). */
  headers: RequestHeaders;
  /** Names and values in turn, as node:http's `rawHeaders` (built when asked for: the redirect reads `headers`). */
  readonly rawHeaders: string[];
  remoteAddress: string | undefined;
}

/** The headers a redirect reads (node:http's requests: `readHeaders` of their raw list, redirect-server.ts). */
export interface RequestHeaders {
  host: string | undefined;
  userAgent: string | undefined;
  /** `Sec-Purpose`, else `Purpose`, `X-Purpose`, `X-Moz` (repeated ones joined with ", ", as `req.headers` does). */
  purpose: string | undefined;
  /** `X-Forwarded-For` (repeated ones joined with ", "), read only behind a trusted proxy. */
  forwardedFor: string | undefined;
}

/** The answer's side of a fast request: node:http's `ServerResponse` calls the redirect uses, and nothing else. */
export interface FastReply {
  readonly destroyed: boolean;
  readonly headersSent: boolean;
  writeHead(status: number, headers: string[]): this;
  end(body?: Buffer): this;
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
/** A header value node:http accepts: no control characters but tab. */
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** The characters of a header name (an RFC 9110 token: ``!#$%&'*+.^_`|~``, digits, letters, `-`), by code. */
const TOKEN_CHAR = new Uint8Array(128);
for (const c of "!#$%&'*+.^_`|~-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TOKEN_CHAR[c.charCodeAt(0)] = 1;

/** `s[from, to)` is a token (one or more of TOKEN_CHAR), read in place. */
function isToken(s: string, from: number, to: number): boolean {
  if (from >= to) return false;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c > 127 || TOKEN_CHAR[c] === 0) return false;
  }
  return true;
}

/** `s[from, to)` has no control character but tab (VALUE), read in place; the head is latin1, so every code is < 256. */
function isValue(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if ((c < 32 && c !== 9) || c === 127) return false;
  }
  return true;
}

/** The token `s[from, from + lower.length)` is `lower` (lower-case letters and `-`) in any case, without a lower-cased copy. */
function nameIs(s: string, from: number, lower: string): boolean {
  // a token's `|0x20` equals a lower-case letter only for that letter in either case, and `-` only for `-`
  for (let i = 0; i < lower.length; i++) if ((s.charCodeAt(from + i) | 0x20) !== lower.charCodeAt(i)) return false;
  return true;
}

const join = (a: string | undefined, b: string) => (a === undefined ? b : `${a}, ${b}`);

/**
 * The headers a redirect reads, picked header by header in one pass: the fast path's over the head's text, checked in
 * place (docs/decisions/0130), and node:http's over its raw list (`readHeaders`, redirect-server.ts). Host and user
 * agent: the first of each, as `req.headers` keeps them; the purposes and the forwarded chain: repeated ones joined with
 * ", ", as `req.headers` joins them. Names are compared without regard to case, by length first.
 */
export class HeaderPick {
  hasHost = false;
  private host: string | undefined;
  private userAgent: string | undefined;
  private secPurpose: string | undefined;
  private purpose: string | undefined;
  private xPurpose: string | undefined;
  private xMoz: string | undefined;
  private forwardedFor: string | undefined;

  /**
   * Takes one header: its name is `name[start, start + length)` (a token), its value `value[from, to)`. False when the
   * header is one the fast subset does not serve (a body, an upgrade, `Expect`, a connection other than keep-alive);
   * node:http's requests take no notice of it.
   */
  take(name: string, start: number, length: number, value: string, from: number, to: number): boolean {
    switch (length) {
      case 4:
        if (nameIs(name, start, 'host')) {
          this.hasHost = true;
          if (this.host === undefined) this.host = value.slice(from, to);
        }
        break;
      case 5:
        if (nameIs(name, start, 'x-moz')) this.xMoz = join(this.xMoz, value.slice(from, to));
        break;
      case 6:
        if (nameIs(name, start, 'expect')) return false;
        break;
      case 7:
        if (nameIs(name, start, 'upgrade')) return false;
        if (nameIs(name, start, 'purpose')) this.purpose = join(this.purpose, value.slice(from, to));
        break;
      case 9:
        if (nameIs(name, start, 'x-purpose')) this.xPurpose = join(this.xPurpose, value.slice(from, to));
        break;
      case 10:
        if (nameIs(name, start, 'connection')) return to - from === 10 && nameIs(value, from, 'keep-alive');
        if (this.userAgent === undefined && nameIs(name, start, 'user-agent')) this.userAgent = value.slice(from, to);
        break;
      case 11:
        if (nameIs(name, start, 'sec-purpose')) this.secPurpose = join(this.secPurpose, value.slice(from, to));
        break;
      case 14:
        if (nameIs(name, start, 'content-length')) return false;
        break;
      case 15:
        if (nameIs(name, start, 'x-forwarded-for')) this.forwardedFor = join(this.forwardedFor, value.slice(from, to));
        break;
      case 17:
        if (nameIs(name, start, 'transfer-encoding')) return false;
        break;
    }
    return true;
  }

  headers(): RequestHeaders {
    return { host: this.host, userAgent: this.userAgent, purpose: this.secPurpose ?? this.purpose ?? this.xPurpose ?? this.xMoz, forwardedFor: this.forwardedFor };
  }
}

/** A header value without the spaces and tabs around it (not String#trim: latin1's no-break space is a value's own). */
function trimOws(s: string, from: number, to: number): string {
  while (from < to && (s.charCodeAt(from) === 32 || s.charCodeAt(from) === 9)) from++;
  while (to > from && (s.charCodeAt(to - 1) === 32 || s.charCodeAt(to - 1) === 9)) to--;
  return s.slice(from, to);
}

/** A request the fast subset took: its head kept, the raw header list made from it only when asked for. */
class ParsedRequest implements FastRequest {
  private raw: string[] | null = null;

  constructor(
    readonly method: 'GET' | 'HEAD',
    readonly url: string,
    readonly headers: RequestHeaders,
    readonly remoteAddress: string | undefined,
    /** The head after the request line's CRLF (header lines, checked by `parse`). */
    private readonly lines: string,
  ) {}

  get rawHeaders(): string[] {
    if (this.raw) return this.raw;
    const raw: string[] = [];
    for (let start = 0; start < this.lines.length; ) {
      let eol = this.lines.indexOf('\r\n', start);
      if (eol < 0) eol = this.lines.length;
      const colon = this.lines.indexOf(':', start);
      raw.push(this.lines.slice(start, colon), trimOws(this.lines, colon + 1, eol));
      start = eol + 2;
    }
    return (this.raw = raw);
  }
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

/** How often the connections are looked at for idleness (the keep-alive timeout's granularity). */
const SWEEP_MS = 1000;

/** The sweeps of a server's idle check so far: a connection's last activity is the sweep count it saw. */
interface SweepClock {
  sweeps: number;
}

/**
 * A `net.Server` speaking the fast subset, `fallback` taking the rest. A connection with nothing read or written for
 * `keepAliveMs` is closed by one timer for all of them (within one or two sweeps after), not by a socket timeout each:
 * node's socket timeout is re-armed on every read and every write, twice a redirect (docs/decisions/0130).
 */
export function createFastHttpServer(options: FastHttpOptions): FastHttpServer {
  const keepAlive = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(options.keepAliveMs / 1000)}\r\n\r\n`;
  const open = new Set<FastConnection>();
  const clock: SweepClock = { sweeps: 0 };
  const idleSweeps = Math.ceil(options.keepAliveMs / SWEEP_MS) + 1;
  let sweeper: NodeJS.Timeout | null = null;
  const server = net.createServer({ noDelay: true }, (socket) => {
    const c = new FastConnection(socket, options, keepAlive, open, clock);
    open.add(c);
    socket.once('close', () => open.delete(c));
    if (sweeper === null) {
      sweeper = setInterval(() => {
        clock.sweeps++;
        for (const o of open) if (clock.sweeps - o.active >= idleSweeps) o.socket.destroy();
      }, SWEEP_MS);
      sweeper.unref();
    }
  });
  server.once('close', () => {
    if (sweeper !== null) clearInterval(sweeper);
    sweeper = null;
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
  /** The sweep count when a byte was last read or written (the keep-alive timeout, `createFastHttpServer`). */
  active: number;
  private readonly onData = (d: Buffer) => {
    this.active = this.clock.sweeps;
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
  private readonly onError = () => this.socket.destroy();

  constructor(
    readonly socket: net.Socket,
    private readonly options: FastHttpOptions,
    readonly keepAlive: string,
    private readonly open: Set<FastConnection>,
    private readonly clock: SweepClock,
  ) {
    this.active = clock.sweeps;
    socket.on('data', this.onData);
    socket.on('error', this.onError);
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
    this.active = this.clock.sweeps;
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

  /**
   * The request, or null when it is not the fast subset (node:http takes the connection). One pass over the header
   * lines checks each in place (no copy of a name or a value it does not need) and picks the headers the redirect
   * reads: no list of every header, no lower-cased names (docs/decisions/0130).
   */
  private parse(head: string): FastRequest | null {
    let eol = head.indexOf('\r\n');
    if (eol < 0) return null;
    const line = REQUEST_LINE.exec(head.slice(0, eol));
    if (!line || !this.options.accepts(line[2])) return null;
    const pick = new HeaderPick();
    let count = 0;
    const first = eol + 2;
    let start = first;
    while (start < head.length) {
      eol = head.indexOf('\r\n', start);
      if (eol < 0) eol = head.length;
      const colon = head.indexOf(':', start);
      if (colon <= start || colon > eol || count++ >= MAX_HEADERS || !isToken(head, start, colon)) return null;
      let from = colon + 1;
      let to = eol;
      while (from < to && (head.charCodeAt(from) === 32 || head.charCodeAt(from) === 9)) from++;
      while (to > from && (head.charCodeAt(to - 1) === 32 || head.charCodeAt(to - 1) === 9)) to--;
      if (!isValue(head, from, to)) return null;
      if (!pick.take(head, start, colon - start, head, from, to)) return null;
      start = eol + 2;
    }
    if (!pick.hasHost) return null;
    return new ParsedRequest(line[1] as 'GET' | 'HEAD', line[2], pick.headers(), this.socket.remoteAddress, head.slice(first));
  }

  /** node:http serves this connection from here on, starting with the bytes not answered yet. */
  private handOff(): void {
    this.handedOff = true;
    const s = this.socket;
    s.removeListener('data', this.onData);
    s.removeListener('error', this.onError);
    s.removeListener('drain', this.onDrain);
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
