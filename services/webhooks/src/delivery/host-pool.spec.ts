import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { HostPool, type HostPoolOptions } from './host-pool';

/**
 * HostPool against receivers on loopback that misbehave as real ones do: close keep-alive connections mid-batch,
 * answer slowly, say `Connection: close`, answer in pieces. What is asserted is what a receiver relies on: every
 * request of an attempt reaches it at most once (a request cut off fails the attempt and is never written again),
 * requests not yet written are all written, answers go to the request they answer.
 */

interface Raw {
  port: number;
  /** Request ids (the x-id header) in the order the receiver read them, over all connections. */
  seen: string[];
  connections: number;
  close: () => Promise<void>;
}

/**
 * A raw HTTP/1.1 receiver: parses requests itself (so pipelined ones are seen as they arrive) and lets the test decide
 * per request what goes on the wire: a raw answer, nothing (hang), or closing the connection.
 */
function rawReceiver(on: (id: string, n: number, socket: net.Socket) => string | 'hang' | 'close'): Promise<Raw> {
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  let connections = 0;
  let n = 0;
  const server = net.createServer((s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    let buf = '';
    s.on('data', (d) => {
      buf += d.toString('latin1');
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.slice(0, end);
        const len = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        buf = buf.slice(end + 4 + len);
        const id = /x-id: (\S+)/i.exec(head)?.[1] ?? '?';
        seen.push(id);
        const what = on(id, n++, s);
        if (what === 'close') {
          s.destroy();
          return;
        }
        if (what !== 'hang') s.write(what);
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        seen,
        get connections() {
          return connections;
        },
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      }),
    ),
  );
}

const ok = (body = 'ok', extra = '') => `HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const opts = (o: Partial<HostPoolOptions> = {}): HostPoolOptions => ({ maxSockets: 2, pipelining: 1, timeoutMs: 30_000, maxBytes: 16_384, ...o });
const poolTo = (port: number, o: Partial<HostPoolOptions> = {}) => new HostPool({ address: '127.0.0.1', port, host: 'receiver.example', tls: false }, opts(o));
const post = (id: string, body = `{"id":"${id}"}`) => ({ method: 'POST' as const, path: `/hook?x=${id}`, headers: { 'x-id': id, 'content-type': 'application/json' }, body });
const count = (ids: string[]) => ids.reduce((m, id) => m.set(id, (m.get(id) ?? 0) + 1), new Map<string, number>());

describe('HostPool', () => {
  it('sends each request once over at most maxSockets keep-alive connections, answers matched to their requests, pipelined in order', async () => {
    const got: Array<{ id: string; host: string; body: string; socket: number }> = [];
    let sockets = 0;
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        got.push({ id: String(req.headers['x-id']), host: String(req.headers.host), body, socket: (req.socket as net.Socket & { n?: number }).n ?? -1 });
        res.end(`answer to ${String(req.headers['x-id'])}`);
      });
    });
    server.on('connection', (s: net.Socket & { n?: number }) => (s.n = sockets++));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    for (const pipelining of [1, 4]) {
      got.length = 0;
      sockets = 0;
      const pool = poolTo(port, { maxSockets: 2, pipelining });
      const ids = Array.from({ length: 60 }, (_, i) => `p${pipelining}-${i}`);
      const outs = await Promise.all(ids.map((id) => pool.send(post(id))));
      pool.close();
      expect(outs.map((o) => o.response?.body)).toEqual(ids.map((id) => `answer to ${id}`));
      expect(outs.every((o) => o.status === 'success')).toBe(true);
      expect([...count(got.map((g) => g.id)).values()].every((n) => n === 1)).toBe(true);
      expect(got).toHaveLength(60);
      expect(got[0]).toMatchObject({ host: `receiver.example:${port}`, body: `{"id":"${ids[0]}"}` });
      expect(sockets).toBeLessThanOrEqual(2);
      // per connection, the receiver read the requests in the order they were sent
      for (const s of new Set(got.map((g) => g.socket))) {
        const order = got.filter((g) => g.socket === s).map((g) => ids.indexOf(g.id));
        expect(order).toEqual([...order].sort((a, b) => a - b));
      }
    }
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('a receiver closing keep-alive connections mid-batch gets no request twice: the ones cut off fail, the unwritten ones are all sent', async () => {
    // every connection: two requests answered, then the connection is closed with more pipelined behind
    const perConn = new WeakMap<net.Socket, number>();
    const rx = await rawReceiver((_id, _n, s) => {
      const k = (perConn.get(s) ?? 0) + 1;
      perConn.set(s, k);
      return k <= 2 ? ok() : 'close';
    });
    try {
      for (const pipelining of [1, 4]) {
        rx.seen.length = 0;
        const pool = poolTo(rx.port, { maxSockets: 3, pipelining });
        const ids = Array.from({ length: 40 }, (_, i) => `c${pipelining}-${i}`);
        const outs = await Promise.all(ids.map((id) => pool.send(post(id))));
        pool.close();
        const received = count(rx.seen);
        // at most once per attempt
        expect([...received.values()].every((n) => n === 1)).toBe(true);
        // answered ones succeeded; the cut-off ones failed (their retry is the next attempt under the same id)
        const failed = outs.filter((o) => o.status === 'failed');
        expect(failed.every((o) => o.error === 'ECONNRESET' && o.response === null)).toBe(true);
        expect(failed.length).toBeGreaterThan(0);
        expect(outs.filter((o) => o.status === 'success')).toHaveLength(40 - failed.length);
        for (const [i, o] of outs.entries()) if (o.status === 'success') expect(received.get(ids[i])).toBe(1);
        // one at a time: every request was written (the receiver read each before closing); pipelined, the ones the
        // receiver dropped unread with the connection failed too, and none was written twice
        if (pipelining === 1) expect(received.size).toBe(40);
        else expect(received.size).toBeLessThanOrEqual(40);
      }
    } finally {
      await rx.close();
    }
  });

  it('a slow answer times out (E-CONNECTION_TIMEOUT) without holding the others back, and is not written again', async () => {
    const rx = await rawReceiver((id) => (id === 'slow' ? 'hang' : ok()));
    try {
      const pool = poolTo(rx.port, { maxSockets: 3, timeoutMs: 2000 });
      const slow = pool.send(post('slow'));
      const others = await Promise.all(Array.from({ length: 10 }, (_, i) => pool.send(post(`fast-${i}`))));
      expect(others.every((o) => o.status === 'success')).toBe(true);
      expect(await slow).toEqual({ status: 'timeout', error: 'E-CONNECTION_TIMEOUT', response: null });
      const after = await pool.send(post('after'));
      pool.close();
      expect(after.status).toBe('success');
      expect(count(rx.seen).get('slow')).toBe(1);
      expect(rx.seen).toHaveLength(12);
    } finally {
      await rx.close();
    }
  });

  it('Connection: close: what was pipelined behind it fails (it may have been processed), what was not written goes to a new connection', async () => {
    const rx = await rawReceiver((_id, n) => (n === 0 ? ok('bye', 'connection: close\r\n') : ok()));
    try {
      const pool = poolTo(rx.port, { maxSockets: 1, pipelining: 3 });
      const outs = await Promise.all(Array.from({ length: 9 }, (_, i) => pool.send(post(`k${i}`))));
      pool.close();
      expect(outs[0]).toMatchObject({ status: 'success', response: { status: 200, body: 'bye' } });
      const received = count(rx.seen);
      expect([...received.values()].every((n) => n === 1)).toBe(true);
      expect(received.size).toBe(9);
      // the two pipelined behind the close failed (the receiver read them); the six not yet written went out on a
      // new connection and were answered
      expect(outs.map((o) => o.status)).toEqual(['success', 'failed', 'failed', 'success', 'success', 'success', 'success', 'success', 'success']);
      expect(outs[1]).toMatchObject({ error: 'ECONNRESET', response: null });
      expect(rx.connections).toBe(2);
    } finally {
      await rx.close();
    }
  });

  it('reads 1xx, chunked, close-delimited and over-long answers, and keeps at most maxBytes of a body', async () => {
    const answers: Record<string, string> = {
      interim: `HTTP/1.1 100 Continue\r\n\r\n${ok('after 100')}`,
      chunked: 'HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\nx-a: 1\r\nx-a: 2\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n',
      gone: 'HTTP/1.1 410 Gone\r\ncontent-length: 0\r\n\r\n',
      big: ok('x'.repeat(5000)),
    };
    const rx = await rawReceiver((id, _n, s) => {
      if (id === 'eof') {
        s.end('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nto the end');
        return 'hang';
      }
      return answers[id];
    });
    try {
      const pool = poolTo(rx.port, { maxBytes: 1000 });
      const [interim, chunked, gone, big, eof] = await Promise.all(['interim', 'chunked', 'gone', 'big', 'eof'].map((id) => pool.send(post(id))));
      pool.close();
      expect(interim).toMatchObject({ status: 'success', response: { status: 200, body: 'after 100' } });
      expect(chunked).toMatchObject({ status: 'success', response: { status: 201, body: 'abcde', headers: { 'x-a': '1, 2' } } });
      expect(gone).toMatchObject({ status: 'failed', error: 'HTTP_410', response: { status: 410 } });
      expect(big).toMatchObject({ status: 'success', response: { status: 200 } });
      expect(big.response?.body).toHaveLength(1000);
      expect(eof).toMatchObject({ status: 'success', response: { status: 200, body: 'to the end' } });
    } finally {
      await rx.close();
    }
  });

  it('refuses a header that would split the request, sending nothing', async () => {
    const rx = await rawReceiver(() => ok());
    try {
      const pool = poolTo(rx.port);
      const out = await pool.send({ ...post('inject'), headers: { 'x-id': 'inject', 'x-evil': 'a\r\nx-injected: 1' } });
      pool.close();
      expect(out).toMatchObject({ status: 'failed', error: 'E-INVALID-HEADER' });
      expect(rx.seen).toEqual([]);
    } finally {
      await rx.close();
    }
  });

  it('a refused connection is a failed attempt with the socket error', async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const pool = poolTo(port);
    const outs = await Promise.all([pool.send(post('a')), pool.send(post('b')), pool.send(post('c'))]);
    pool.close();
    expect(outs.map((o) => [o.status, o.error])).toEqual([
      ['failed', 'ECONNREFUSED'],
      ['failed', 'ECONNREFUSED'],
      ['failed', 'ECONNREFUSED'],
    ]);
  });
});
