import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { buildServer, json, startProcess, type ServerProcess } from './server-process';

/** The embedded server exactly as `npm start` runs it: a separate process, its own PostgreSQL, the admin build. */
describe('embedded server (npm start)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-embedded-'));
  // as root, PostgreSQL runs as the postgres user, which must be able to enter the data directory
  fs.chmodSync(dataDir, 0o755);
  const env = {
    PORT: '0',
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_ADMIN_EMAIL: 'owner@example.com',
    SWITCHBOARD_ADMIN_PASSWORD: 'correct horse battery',
  };
  let server: ServerProcess;
  let base: string;

  beforeAll(async () => {
    buildServer();
    server = startProcess('dist/apps/platform/src/main.js', env);
    const m = await server.waitFor(/Admin console : (http:\/\/[\d.:]+)\//, 120000);
    base = m[1];
  }, 150000);

  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the URL and the seeded login, and reports healthy', async () => {
    // a configured password is never printed; the mailbox is open on loopback
    expect(server.output()).toContain('Sign in       : owner@example.com (password: SWITCHBOARD_ADMIN_PASSWORD');
    expect(server.output()).not.toContain('correct horse battery');
    expect(server.output()).toMatch(/PIN emails    : http:\/\/127\.0\.0\.1:\d+\/api\/dev\/mailbox\n/);
    const res = await fetch(`${base}/api/health`);
    expect(res.status).toBe(200);
    // the short links' redirect server on its own port, printed too
    const redirect = /Short links   : (http:\/\/127\.0\.0\.1:\d+)\/\{code\}/.exec(server.output());
    expect(redirect).not.toBeNull();
    expect(redirect![1]).not.toBe(base);
    expect((await fetch(`${redirect![1]}/-/health`)).status).toBe(200);
    const unknown = await fetch(`${redirect![1]}/Abc1234`, { redirect: 'manual' });
    expect(unknown.status).toBe(404);
  });

  it("reaches its PostgreSQL over the server's unix socket, not TCP (docs/decisions/0196)", async () => {
    const m = /PostgreSQL running on 127\.0\.0\.1:(\d+) and its unix socket in (\S+) /.exec(server.output());
    expect(m).not.toBeNull();
    expect(fs.readdirSync(m![2])).toContain(`.s.PGSQL.${m![1]}`);
    const c = new Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${m![1]}/switchboard` });
    await c.connect();
    try {
      const { rows } = await c.query<{ tcp: number; local: number }>(
        `SELECT count(*) FILTER (WHERE client_addr IS NOT NULL)::int AS tcp, count(*) FILTER (WHERE client_addr IS NULL)::int AS local
           FROM pg_stat_activity WHERE datname = 'switchboard' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      );
      expect(rows[0].local).toBeGreaterThan(0);
      expect(rows[0].tcp).toBe(0);
    } finally {
      await c.end();
    }
  });

  it('signs in with the password and the emailed PIN, then reads the profile', async () => {
    const creds = { username: 'owner@example.com', password: 'correct horse battery', gCaptchaToken: 'x' };
    const check = await fetch(`${base}/api/login_check`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(creds) });
    expect(check.status).toBe(200);
    const checkBody = await json(check);
    expect(checkBody.maskedEmail).toMatch(/^o\*+@example\.com$/);
    expect(checkBody).not.toHaveProperty('token');

    const mail = await json<Array<{ to: string; subject: string; text: string }>>(await fetch(`${base}/api/dev/mailbox`));
    expect(mail[0].to).toBe('owner@example.com');
    const pin = /\b(\d{6})\b/.exec(mail[0].text)?.[1];
    expect(pin).toBeDefined();

    const login = await fetch(`${base}/api/login/manual`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...creds, pin }) });
    expect(login.status).toBe(200);
    const tokens = await json<{ token: string; refresh_token: string }>(login);
    const me = await json<{ email: string; roles: string[]; customers: Array<{ name: string }> }>(
      await fetch(`${base}/api/users/connected`, { headers: { authorization: `Bearer ${tokens.token}` } }),
    );
    expect(me.email).toBe('owner@example.com');
    expect(me.roles).toContain('ROLE_SUPER_ADMIN');
    expect(me.customers.map((c) => c.name)).toContain('Demo account');
  });

  it('verifies an added short-link domain against its DNS simulator, and never a name under .invalid', async () => {
    const address = /Domains DNS   : simulated at (127\.0\.0\.1:\d+)/.exec(server.output());
    expect(address).not.toBeNull();
    const creds = { username: 'owner@example.com', password: 'correct horse battery', gCaptchaToken: 'x' };
    expect((await fetch(`${base}/api/login_check`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(creds) })).status).toBe(200);
    const mail = await json<Array<{ text: string }>>(await fetch(`${base}/api/dev/mailbox`));
    const pin = /\b(\d{6})\b/.exec(mail[0].text)?.[1];
    const { token } = await json<{ token: string }>(
      await fetch(`${base}/api/login/manual`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...creds, pin }) }),
    );
    const call = async <T>(method: string, p: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${base}/api${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      expect(res.status).toBeLessThan(300);
      return json<T>(res);
    };
    await call('POST', '/domains/bulk', { domains: ['go.example.com', 'nowhere.invalid'] });
    const list = await call<{ data?: Array<{ id: number; name: string }>; items?: Array<{ id: number; name: string }> } | Array<{ id: number; name: string }>>('GET', '/domains?limit=50');
    const rows = Array.isArray(list) ? list : (list.data ?? list.items ?? []);
    const id = (name: string) => rows.find((d) => d.name === name)!.id;
    // the records the instructions ask for answer at once: configured by its CNAME and the account's TXT token
    expect(await call('POST', `/domains/${id('go.example.com')}/check`)).toMatchObject({ state: 1, type: 'CNAME', declinedReason: null });
    expect(await call('POST', `/domains/${id('nowhere.invalid')}/check`)).toMatchObject({ state: 0 });
  });

  it('refuses a wrong password with code 1801', async () => {
    const res = await fetch(`${base}/api/login_check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'owner@example.com', password: 'wrong password', gCaptchaToken: 'x' }),
    });
    expect(res.status).toBe(401);
    expect((await json(res)).code).toBe(1801);
  });

  it('serves the admin console at / and the OpenAPI document at /api/docs.json', async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const deep = await fetch(`${base}/select-account`);
    expect(await deep.text()).toContain('<div id="root">');
    const doc = await json<{ paths: Record<string, unknown> }>(await fetch(`${base}/api/docs.json`));
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/login_check', '/api/login/manual', '/api/token_refresh', '/api/users/connected']));
  });

  it('stops PostgreSQL on SIGTERM and starts again on the same data after a crash', async () => {
    const code = await server.stop('SIGTERM');
    expect(code).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);

    // a crash: SIGKILL leaves the data directory as it is
    let s = startProcess('dist/apps/platform/src/main.js', env);
    await s.waitFor(/Admin console : /, 120000);
    await s.stop('SIGKILL');
    s = startProcess('dist/apps/platform/src/main.js', env);
    const m = await s.waitFor(/Admin console : (http:\/\/[\d.:]+)\//, 120000);
    server = s;
    // the seeded data survived and was not seeded twice
    const check = await fetch(`${m[1]}/api/login_check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'owner@example.com', password: 'correct horse battery', gCaptchaToken: 'x' }),
    });
    expect(check.status).toBe(200);
  }, 300000);
});
