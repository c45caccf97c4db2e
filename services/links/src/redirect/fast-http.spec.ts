import * as http from 'node:http';
import * as net from 'node:net';
import { createFastHttpServer, type FastHttpServer, type FastRequest } from './fast-http';

/**
 * The fast path against node:http behind it: the plainest requests answered by the fast parser, every other connection
 * handed to node:http with its unanswered bytes, answers in request order either way.
 */
describe('redirect fast path (node:net, node:http for the rest)', () => {
  let fast: FastHttpServer;
  let fallback: http.Server;
  let port: number;
  /** The server's side of the newest connection: how many bytes it has read (and handled, in the same tick). */
  let accepted: net.Socket | null = null;
  const BIG = Buffer.alloc(32 * 1024, 'x');
  const seen: Array<{ by: 'fast' | 'http'; method: string; url: string; headers: string[] }> = [];
  /** `/slow...` answers after a timer (a link read from the database), the rest at once. */
  const answer = (url: string, done: (status: number, location: string) => void) => {
    if (url.startsWith('/slow')) setTimeout(() => done(302, `https://t.example${url}`), 30);
    else done(302, `https://t.example${url}`);
  };

  beforeAll(async () => {
    fallback = http.createServer((req, res) => {
      seen.push({ by: 'http', method: req.method!, url: req.url!, headers: req.rawHeaders });
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.writeHead(200, ['Content-Type', 'text/plain', 'Content-Length', String(Buffer.byteLength(`http ${req.method} ${req.url} ${body}`))]);
        res.end(`http ${req.method} ${req.url} ${body}`);
      });
    });
    fast = createFastHttpServer({
      fallback,
      keepAliveMs: 65_000,
      accepts: (url) => url.length === 8 || url.startsWith('/slow'),
      handle: (req: FastRequest, reply) => {
        seen.push({ by: 'fast', method: req.method, url: req.url, headers: req.rawHeaders });
        if (req.url.startsWith('/big')) {
          reply.writeHead(200, ['Content-Length', String(BIG.length)]);
          reply.end(BIG);
          return;
        }
        answer(req.url, (status, location) => {
          const body = Buffer.from('moved');
          reply.writeHead(status, ['Location', location, 'Content-Length', String(body.length)]);
          reply.end(body);
        });
      },
    });
    fast.server.on('connection', (s: net.Socket) => (accepted = s));
    await new Promise<void>((r) => fast.server.listen(0, '127.0.0.1', () => r()));
    port = (fast.server.address() as net.AddressInfo).port;
  });

  afterAll(async () => {
    fast.closeIdle();
    await new Promise<void>((r) => fast.server.close(() => r()));
  });

  beforeEach(() => (seen.length = 0));

  /**
   * Writes `raw` on one connection and reads until `answers` complete responses have come. Each piece but the last is
   * read by the server before the next is written, so the pieces arrive apart however loaded the machine is.
   */
  const exchange = (pieces: string[], answers: number, headOnly: readonly boolean[] = []): Promise<string[]> =>
    new Promise((resolve, reject) => {
      accepted = null;
      const s = net.connect(port, '127.0.0.1');
      let got = Buffer.alloc(0);
      const out: string[] = [];
      s.on('data', (d: Buffer) => {
        got = Buffer.concat([got, d]);
        // split complete responses: head, then Content-Length bytes
        for (;;) {
          const text = got.toString('latin1');
          const end = text.indexOf('\r\n\r\n');
          if (end < 0) break;
          const len = headOnly[out.length] ? 0 : Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
          if (got.length < end + 4 + len) break;
          out.push(text.slice(0, end + 4 + len));
          got = got.subarray(end + 4 + len);
        }
        if (out.length >= answers) {
          s.destroy();
          resolve(out);
        }
      });
      s.on('error', reject);
      s.on('close', () => resolve(out));
      void (async () => {
        let written = 0;
        for (const [i, p] of pieces.entries()) {
          const bytes = Buffer.from(p, 'latin1');
          s.write(bytes);
          written += bytes.length;
          if (i === pieces.length - 1) break;
          const end = Date.now() + 10_000;
          // `accepted` is set by the server's connection listener: the assignment above does not fix its type here
          const read = () => (accepted as net.Socket | null)?.bytesRead ?? 0;
          while (read() < written && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
        }
      })();
    });

  const get = (path: string, headers = 'Host: go.shop.test\r\nUser-Agent: A/1\r\n') => `GET ${path} HTTP/1.1\r\n${headers}\r\n`;
  const status = (r: string) => Number(r.split(' ')[1]);
  const header = (r: string, name: string) => new RegExp(`\r\n${name}: ([^\r]*)`, 'i').exec(r)?.[1];

  it('answers pipelined requests in their order, one waiting for the database holding back those behind it', async () => {
    const r = await exchange([get('/aaaaaaa') + get('/slow-one') + get('/bbbbbbb') + get('/ccccccc', 'Host: go.shop.test\r\n')], 4);
    expect(r.map((x) => header(x, 'Location'))).toEqual(['https://t.example/aaaaaaa', 'https://t.example/slow-one', 'https://t.example/bbbbbbb', 'https://t.example/ccccccc']);
    expect(r.map(status)).toEqual([302, 302, 302, 302]);
    expect(r.every((x) => header(x, 'Connection') === 'keep-alive' && /GMT$/.test(header(x, 'Date') ?? ''))).toBe(true);
    expect(seen.map((s) => s.by)).toEqual(['fast', 'fast', 'fast', 'fast']);
    expect(seen[0].headers).toEqual(['Host', 'go.shop.test', 'User-Agent', 'A/1']);
  });

  it('hands the connection to node:http at the first request it does not take, bytes unanswered included, and node:http keeps it', async () => {
    const post = 'POST /aaaaaaa HTTP/1.1\r\nHost: go.shop.test\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello';
    const r = await exchange([get('/aaaaaaa') + post + get('/bbbbbbb')], 3);
    expect(r.map(status)).toEqual([302, 200, 200]);
    expect(r[1]).toMatch(/http POST \/aaaaaaa hello$/);
    expect(r[2]).toMatch(/http GET \/bbbbbbb $/);
    expect(seen.map((s) => `${s.by} ${s.method} ${s.url}`)).toEqual(['fast GET /aaaaaaa', 'http POST /aaaaaaa', 'http GET /bbbbbbb']);
  });

  it('leaves to node:http whatever is not the plainest request: a body, chunks, another path, HTTP/1.0, no Host, a folded or malformed header, a head split across packets', async () => {
    const cases: Array<{ pieces: string[]; by: 'http'; status?: number }> = [
      { pieces: ['GET /aaaaaaa HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'], by: 'http' },
      { pieces: ['GET /aaaaaaa HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n'], by: 'http' },
      { pieces: [get('/-/metrics')], by: 'http' },
      { pieces: ['GET /aaaaaaa HTTP/1.0\r\nHost: h\r\n\r\n'], by: 'http' },
      { pieces: ['GET /aaaaaaa HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n'], by: 'http' },
      { pieces: ['GET /aaaaaaa HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: keep-alive\r\n\r\n'], by: 'http' },
      { pieces: ['GET /aaaaaaa HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n\r\n'.slice(0, 20), 'GET /aaaaaaa HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n\r\n'.slice(20)], by: 'http' },
    ];
    for (const c of cases) {
      seen.length = 0;
      const [r] = await exchange(c.pieces, 1);
      expect(status(r)).toBe(200);
      expect(seen.map((s) => s.by)).toEqual([c.by]);
    }
    // node:http refuses what it refuses, the fast path never answers it
    for (const bad of ['GET /aaaaaaa HTTP/1.1\r\nUser-Agent: no host\r\n\r\n', 'GET /aaaaaaa HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n folded\r\n\r\n', 'GET /aaaaaaa HTTP/1.1\r\nHost: h\r\nX A: 1\r\n\r\n', 'GET /aaaaaaa HTTP/1.1\r\nHost: h\nX-A: 1\r\n\r\n']) {
      seen.length = 0;
      const [r] = await exchange([bad], 1);
      expect(status(r)).toBe(400);
      expect(seen).toEqual([]);
    }
  });

  it('reads header values as latin1 bytes without the spaces around them, as node:http does, and answers HEAD without a body', async () => {
    const [r, second] = await exchange([`HEAD /aaaaaaa HTTP/1.1\r\nHost: go.shop.test\r\nUser-Agent:  Zo\u00eb \\ "x"\u00a0 \r\n\r\n`, get('/bbbbbbb')], 2, [true]);
    expect(seen[0].headers).toEqual(['Host', 'go.shop.test', 'User-Agent', 'Zo\u00eb \\ "x"\u00a0']);
    expect(status(r)).toBe(302);
    expect(header(r, 'Content-Length')).toBe('5');
    expect(r.endsWith('\r\n\r\n')).toBe(true);
    expect(header(second, 'Location')).toBe('https://t.example/bbbbbbb');
  });

  it('stops reading a client that sends requests without reading the answers, and answers every one once it reads', async () => {
    const s = net.connect(port, '127.0.0.1');
    await new Promise((r) => s.once('connect', r));
    s.pause();
    const n = 3000;
    s.write(Array.from({ length: n }, (_, i) => get(`/big${String(i % 10_000).padStart(4, '0')}`)).join(''));
    await new Promise((r) => setTimeout(r, 500));
    // about what the kernel's socket buffers hold, not the 96 MB of answers the requests ask for
    expect(seen.length).toBeLessThan(n / 3);
    // then every request is answered once, in order (by the fast path, or by node:http if a head arrived split)
    let answers = 0;
    let tail = '';
    s.on('data', (d: Buffer) => {
      const text = tail + d.toString('latin1');
      answers += text.split('HTTP/1.1 ').length - 1;
      tail = text.slice(-8);
    });
    s.resume();
    for (let i = 0; i < 600 && answers < n; i++) await new Promise((r) => setTimeout(r, 25));
    s.destroy();
    expect(answers).toBe(n);
    expect(seen.map((x) => x.url)).toEqual(Array.from({ length: n }, (_, i) => `/big${String(i % 10_000).padStart(4, '0')}`));
  });
  it('closes a keep-alive connection once nothing was read or written on it for the keep-alive time, and not one in use', async () => {
    const short = createFastHttpServer({
      fallback: http.createServer(),
      keepAliveMs: 1000,
      accepts: () => true,
      handle: (_req, reply) => {
        reply.writeHead(302, ['Location', 'https://t.example/', 'Content-Length', '0']);
        reply.end();
      },
    });
    await new Promise<void>((r) => short.server.listen(0, '127.0.0.1', () => r()));
    const at = (short.server.address() as net.AddressInfo).port;
    const connect = async () => {
      const s = net.connect(at, '127.0.0.1');
      const closed = { at: 0 };
      s.on('close', () => (closed.at = Date.now()));
      s.on('data', () => undefined);
      await new Promise((r) => s.once('connect', r));
      return { s, closed };
    };
    try {
      const idle = await connect();
      const busy = await connect();
      const start = Date.now();
      idle.s.write(get('/aaaaaaa'));
      // the busy connection asks every 300 ms for 3.6 s: never idle for a second
      for (let i = 0; i < 12; i++) {
        busy.s.write(get('/bbbbbbb'));
        await new Promise((r) => setTimeout(r, 300));
      }
      expect(idle.closed.at).toBeGreaterThanOrEqual(start + 1000);
      expect(busy.closed.at).toBe(0);
      busy.s.destroy();
    } finally {
      short.closeIdle();
      await new Promise<void>((r) => short.server.close(() => r()));
    }
  });
});
