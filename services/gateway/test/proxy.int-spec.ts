import { createHash, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { startTracing, stopTracing } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { GatewayModule, ReadinessService } from '../src';

interface Echo {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  length: number;
  sha256: string;
  text: string;
}

/** Slow calls the upstream saw end because the caller went away. */
const abandoned: string[] = [];

/** An upstream service on 127.0.0.1 that echoes what it received. */
function startUpstream(): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/api/slow')) {
      res.on('close', () => abandoned.push(req.url ?? ''));
      return; // never answers
    }
    if (req.url === '/api/users/big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      let left = 40;
      const more = () => {
        while (left > 0) {
          left--;
          if (!res.write(Buffer.alloc(64 * 1024, 7))) return void res.once('drain', more);
        }
        res.end();
      };
      return more();
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const echo: Echo = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        length: body.length,
        sha256: createHash('sha256').update(body).digest('hex'),
        text: body.length < 10_000 ? body.toString('utf8') : '',
      };
      const status = Number(req.headers['x-want-status'] ?? 200);
      res.writeHead(status, {
        'content-type': 'application/json',
        'x-upstream': 'auth',
        'set-cookie': ['a=1; Path=/', 'b=2; Path=/'],
        connection: 'keep-alive, x-secret-hop',
        'x-secret-hop': 'must not pass',
      });
      res.end(JSON.stringify(echo));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('gateway proxy (distributed mode)', () => {
  let t: TestApp;
  let upstream: { server: http.Server; url: string };

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    upstream = await startUpstream();
    const down = `http://127.0.0.1:${await closedPort()}`;
    t = await createTestApp(() => ({
      imports: [
        GatewayModule.register({
          mode: 'distributed',
          routes: { auth: upstream.url, dead: down },
          proxy: {
            // idle time: long enough for a 5 MB body on a loaded machine, short enough for the 504 test
            timeoutMs: 3000,
            table: { users: 'auth', login_check: 'auth', slow: 'auth', gone: 'dead', orphan: 'unconfigured' },
          },
        }),
      ],
    }));
    t.app.get(ReadinessService).markReady();
  });

  afterAll(async () => {
    await t.close();
    await new Promise((r) => upstream.server.close(r));
    jest.restoreAllMocks();
  });

  it("continues the caller's trace upstream: the upstream gets a traceparent of the same trace naming the gateway's span", async () => {
    const exporter = new InMemorySpanExporter();
    startTracing({ serviceName: 'gateway', exporter });
    try {
      const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
      const res = await fetch(`${t.url}/api/users/7`, { headers: { traceparent: `00-${trace}-00f067aa0ba902b7-01` } });
      const echo = (await res.json()) as Echo;
      let span = exporter.getFinishedSpans().find((s) => s.name === 'proxy auth');
      for (let i = 0; i < 100 && !span; i++) {
        await new Promise((r) => setTimeout(r, 10));
        span = exporter.getFinishedSpans().find((s) => s.name === 'proxy auth');
      }
      expect(span?.kind).toBe(SpanKind.CLIENT);
      expect(span?.spanContext().traceId).toBe(trace);
      expect(span?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
      expect(echo.headers.traceparent).toBe(`00-${trace}-${span?.spanContext().spanId}-01`);
    } finally {
      await stopTracing();
    }
  });

  it('passes a traceparent through untouched when the gateway does not trace', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const echo = (await (await fetch(`${t.url}/api/users/8`, { headers: { traceparent } })).json()) as Echo;
    expect(echo.headers.traceparent).toBe(traceparent);
  });

  it('passes method, path, query, headers, body and status through', async () => {
    const res = await fetch(`${t.url}/api/users/5?expand=roles&x=%20y`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: 'Bearer abc', 'x-custom': 'kept', 'x-want-status': '418' },
      body: '{"firstName": "Ann",   "raw":  true}',
    });
    expect(res.status).toBe(418);
    expect(res.headers.get('x-upstream')).toBe('auth');
    expect(res.headers.get('set-cookie')).toBe('a=1; Path=/, b=2; Path=/');
    expect(res.headers.get('x-secret-hop')).toBeNull();
    const echo = (await res.json()) as Echo;
    expect(echo.method).toBe('PUT');
    expect(echo.url).toBe('/api/users/5?expand=roles&x=%20y');
    // the exact bytes, not a re-serialised body
    expect(echo.text).toBe('{"firstName": "Ann",   "raw":  true}');
    expect(echo.headers).toMatchObject({ authorization: 'Bearer abc', 'x-custom': 'kept', 'content-type': 'application/json' });
    expect(echo.headers.host).toBe(new URL(upstream.url).host);
    expect(echo.headers['x-forwarded-host']).toBe(new URL(t.url).host);
    expect(echo.headers['x-forwarded-proto']).toBe('http');
  });

  it('sets X-Forwarded-For to the client (a chain the client sent is dropped) and carries X-Request-Id', async () => {
    const withChain = (await (await fetch(`${t.url}/api/users`, { headers: { 'x-forwarded-for': '203.0.113.9', 'x-request-id': 'req-12345678' } })).json()) as Echo;
    // the gateway trusts no proxy here: the client's own X-Forwarded-For could name anyone
    expect(withChain.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(withChain.headers['x-request-id']).toBe('req-12345678');

    const res = await fetch(`${t.url}/api/users`);
    const fresh = (await res.json()) as Echo;
    expect(fresh.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('x-request-id')).toBe(fresh.headers['x-request-id']);
  });

  it('streams large bodies both ways, untouched by the JSON body limit', async () => {
    const body = randomBytes(5 * 1024 * 1024);
    const up = (await (await fetch(`${t.url}/api/login_check`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()) as Echo;
    expect(up.length).toBe(body.length);
    expect(up.sha256).toBe(createHash('sha256').update(body).digest('hex'));

    const down = await fetch(`${t.url}/api/users/big`);
    expect(down.status).toBe(200);
    expect((await down.arrayBuffer()).byteLength).toBe(40 * 64 * 1024);
  });

  it('answers 502 with the error body when the upstream is down', async () => {
    const res = await fetch(`${t.url}/api/gone/1`, { method: 'POST', body: 'x' });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ code: '0x0', message: 'service dead is unavailable', status: 502 });
    const unconfigured = await fetch(`${t.url}/api/orphan`);
    expect(unconfigured.status).toBe(502);
    expect(await unconfigured.json()).toMatchObject({ code: '0x0', status: 502 });
  });

  it('answers 504 when the upstream does not answer in time', async () => {
    const res = await fetch(`${t.url}/api/slow`);
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ code: '0x0', status: 504 });
  });

  it('abandons the upstream call when the client goes away', async () => {
    const ctrl = new AbortController();
    const pending = fetch(`${t.url}/api/slow/abort-me`, { signal: ctrl.signal }).catch(() => 'aborted');
    await new Promise((r) => setTimeout(r, 100));
    ctrl.abort();
    expect(await pending).toBe('aborted');
    // well before the 3 s proxy timeout would have ended it anyway
    const end = Date.now() + 200;
    while (!abandoned.includes('/api/slow/abort-me') && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(abandoned).toContain('/api/slow/abort-me');
  });

  it('answers 404 with the error body for a prefix no service owns, and refuses dot segments', async () => {
    const res = await fetch(`${t.url}/api/campaigns`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    // raw paths: URL parsers (fetch, http.get with a string) would resolve the dots before sending
    const { hostname, port } = new URL(t.url);
    for (const raw of ['/api/users/%2e%2e/secret', '/api/users/../secret', '/api/users/./x']) {
      const status = await new Promise<number>((resolve, reject) =>
        http.get({ hostname, port, path: raw }, (r) => (r.resume(), resolve(r.statusCode ?? 0))).on('error', reject),
      );
      expect([raw, status]).toEqual([raw, 400]);
    }
  });

  it('keeps its own routes: /api/health and /realtime are not proxied', async () => {
    const res = await fetch(`${t.url}/api/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${t.url}/realtime?topic=campaigns`)).status).toBe(401);
  });

  it('behind a proxy it trusts, forwards the client that proxy reported, and only that one', async () => {
    const behind = await createTestApp(() => ({
      imports: [GatewayModule.register({ mode: 'distributed', routes: { auth: upstream.url }, proxy: { table: { users: 'auth' } } })],
      trustProxy: '127.0.0.1',
    }));
    try {
      behind.app.get(ReadinessService).markReady();
      const seen = async (xff?: string) => ((await (await fetch(`${behind.url}/api/users`, { headers: xff ? { 'x-forwarded-for': xff } : {} })).json()) as Echo).headers['x-forwarded-for'];
      expect(await seen('203.0.113.9')).toBe('203.0.113.9');
      // what the client put in front of the load balancer's entry is not the client
      expect(await seen('198.51.100.1, 203.0.113.9')).toBe('203.0.113.9');
      expect(await seen()).toBe('127.0.0.1');
    } finally {
      await behind.close();
    }
  });
});
