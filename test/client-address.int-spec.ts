import * as http from 'node:http';
import { Logger } from '@nestjs/common';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { GatewayModule, ReadinessService } from '@switchboard/gateway';
import { startAuth, type AuthTestApp } from '../services/auth/test/support';

/**
 * Distributed mode, the auth service behind the gateway (issue 10, item 6): the service trusts exactly the gateway's
 * hop (TRUST_PROXY = the gateway's address, as deploy/compose.yaml and k8s/ set it), so the sign-in throttle counts
 * each client by its own address, not by the gateway's. Two clients on their own loopback addresses (127.0.0.2 and
 * 127.0.0.3) reach the gateway; the gateway reaches auth from 127.0.0.1.
 */
describe('client addresses through the gateway', () => {
  let auth: AuthTestApp;
  let gateway: TestApp;
  const password = 'correct horse battery';

  /** A call from a client bound to `from`, through the gateway. */
  function callFrom(from: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const url = new URL(gateway.url);
    const data = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: url.hostname, port: url.port, path, method: 'POST', localAddress: from, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown> }));
        },
      );
      req.on('error', reject);
      req.end(data);
    });
  }
  const check = (from: string, username: string, pw: string, headers?: Record<string, string>) => callFrom(from, '/api/login_check', { username, password: pw, gCaptchaToken: 'x' }, headers);

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    // 3 failures per client address; the email limit out of the way
    auth = await startAuth({ throttle: { perIp: { limit: 3, windowSeconds: 900 }, perEmail: { limit: 1000, windowSeconds: 900 } } }, { trustProxy: '127.0.0.1' });
    gateway = await createTestApp(() => ({ imports: [GatewayModule.register({ mode: 'distributed', routes: { auth: auth.t.url } })] }));
    gateway.app.get(ReadinessService).markReady();
    await auth.seed.createUser({ email: 'alice@example.com', password });
    await auth.seed.createUser({ email: 'bob@example.com', password });
  });
  afterAll(async () => {
    await gateway?.close();
    await auth?.close();
    jest.restoreAllMocks();
  });

  it('locks out the client that failed, by its own address, and not another client behind the same gateway', async () => {
    for (let i = 0; i < 3; i++) expect((await check('127.0.0.2', `spray${i}@example.com`, 'Winter2026!')).status).toBe(401);
    const locked = await check('127.0.0.2', 'alice@example.com', password);
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('TOO_MANY_REQUESTS');
    // the other client is not locked out: right password answered, wrong one judged (401, not 429)
    expect((await check('127.0.0.3', 'bob@example.com', password)).status).toBe(200);
    expect((await check('127.0.0.3', 'nobody@example.com', 'wrong password')).status).toBe(401);
    // the failures were counted against the clients' addresses, never the gateway's
    const subjects = (await auth.sql<{ subject: string }>(`SELECT DISTINCT subject FROM auth.login_failure WHERE scope = 'ip' ORDER BY subject`)).map((r) => r.subject);
    expect(subjects).toEqual(['127.0.0.2', '127.0.0.3']);
  });

  it('is not fooled by an X-Forwarded-For the client sends: no way out of the lockout, no way to lock out someone else', async () => {
    const spoofed = await check('127.0.0.2', 'alice@example.com', password, { 'x-forwarded-for': '198.51.100.23' });
    expect(spoofed.status).toBe(429);
    expect((await check('127.0.0.2', 'alice@example.com', password, { 'x-forwarded-for': '198.51.100.23, 127.0.0.3' })).status).toBe(429);
    // a client claiming to be the locked-out one is judged as itself
    expect((await check('127.0.0.3', 'nobody@example.com', 'wrong again', { 'x-forwarded-for': '127.0.0.2' })).status).toBe(401);
    const subjects = (await auth.sql<{ subject: string }>(`SELECT DISTINCT subject FROM auth.login_failure WHERE scope = 'ip' ORDER BY subject`)).map((r) => r.subject);
    expect(subjects).toEqual(['127.0.0.2', '127.0.0.3']);
  });
});
