import * as http from 'node:http';
import { Logger, type LoggerService } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { RedactingLogger } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { GatewayModule, ReadinessService } from '@switchboard/gateway';
import { startAuth, type AuthTestApp } from '../services/auth/test/support';

/**
 * The access token in a URL (issue 10, item 11): accepted only where no header can be sent (the event stream,
 * downloads), and never written to a log line. Distributed mode: auth behind the gateway.
 */
describe('access tokens in URLs', () => {
  let auth: AuthTestApp;
  let gateway: TestApp;
  let userId: string;
  let account: string;
  const written: string[] = [];
  let restore: Array<() => void> = [];

  async function closedPort(): Promise<number> {
    const s = http.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    return port;
  }

  beforeAll(async () => {
    auth = await startAuth();
    await auth.seed.ensureSystemRoles();
    account = (await auth.seed.createAccount({ name: 'Acme' })).id;
    const user = await auth.seed.createUser({ email: 'ann@example.com', password: 'correct horse battery' });
    await auth.seed.addMember({ userId: user.id, accountId: account, status: 0 });
    userId = user.id;
    const down = `http://127.0.0.1:${await closedPort()}`;
    gateway = await createTestApp(() => ({
      imports: [GatewayModule.register({ mode: 'distributed', routes: { auth: auth.t.url, dead: down }, proxy: { table: { users: 'auth', gone: 'dead' } } })],
    }));
    gateway.app.get(ReadinessService).markReady();
    // every line the process logs from here on, as the real logger receives it (behind the redaction that
    // configureHttpApp installs; in jest the innermost logger is Nest's TestingLogger, which drops warnings)
    const installed = (Logger as unknown as { staticInstanceRef: LoggerService }).staticInstanceRef;
    expect(installed).toBeInstanceOf(RedactingLogger);
    const inner = (installed as unknown as { inner: LoggerService }).inner as unknown as Record<string, (...args: unknown[]) => void>;
    for (const level of ['log', 'error', 'warn', 'debug', 'verbose', 'fatal']) {
      const spy = jest.spyOn(inner, level).mockImplementation((...args: unknown[]) => void written.push(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : String(a))).join(' ')));
      restore.push(() => spy.mockRestore());
    }
  });
  afterAll(async () => {
    restore.forEach((r) => r());
    restore = [];
    await gateway?.close();
    await auth?.close();
  });

  it('refuses a normal resource with ?access_token= (401): only the Authorization header opens it', async () => {
    const token = auth.tokenFor(userId, account);
    const res = await fetch(`${gateway.url}/api/users/connected?access_token=${token}`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('0x11');
    const ok = await fetch(`${gateway.url}/api/users/connected`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
  });

  it('still opens the event stream with ?access_token= (EventSource cannot send headers)', async () => {
    const abort = new AbortController();
    const res = await fetch(`${gateway.url}/realtime?topic=streams&access_token=${gateway.token({ sub: '1', acc: '10' })}`, { signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    abort.abort();
  });

  it('writes no token to any log line, the proxy error of a URL carrying one included', async () => {
    const token = auth.tokenFor(userId, account);
    const res = await fetch(`${gateway.url}/api/gone/export.csv?id=4&access_token=${token}&refresh_token=r3fr3sh-s3cr3t&password=hunter2hunter2`);
    expect(res.status).toBe(502);
    const log = written.join('');
    expect(log).toContain('GET /api/gone/export.csv?id=4&access_token=[REDACTED]&refresh_token=[REDACTED]&password=[REDACTED]');
    for (const secret of [token, token.split('.')[2], 'r3fr3sh-s3cr3t', 'hunter2hunter2']) expect(log).not.toContain(secret);
  });
});
