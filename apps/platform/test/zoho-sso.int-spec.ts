import { WebSocket } from 'ws';
import { COMPLETE_SSO_EVENT, Permission, SSO_BINDING_COOKIE, SSO_WS_PATH, type CompleteSsoData, type SsoWsServerMessage } from '@switchboard/contracts';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { AuthBootstrapService, AuthModule } from '@switchboard/auth';
import { GatewayModule } from '@switchboard/gateway';
import { LocalZoho, type ZohoUser } from './zoho-server';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers read field by field
const APP_URL = 'http://app.test';

/** The socket the /zoho-sso page waits on: what it received, and how it was closed. */
class SsoSocket {
  readonly got: SsoWsServerMessage[] = [];
  closed: Promise<number>;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => this.got.push(JSON.parse(d.toString()) as SsoWsServerMessage));
    this.closed = new Promise((r) => ws.once('close', (code) => r(code)));
  }
  /** Opens, or answers the HTTP status the upgrade was refused with. */
  static open(url: string, cookie: string | null): Promise<SsoSocket | number> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: cookie ? { cookie } : {} });
      const s = new SsoSocket(ws);
      ws.once('open', () => resolve(s));
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('error', reject);
    });
  }
  async complete(): Promise<CompleteSsoData> {
    await this.closed;
    const m = this.got.find((x) => x.type === COMPLETE_SSO_EVENT);
    if (!m || m.type !== COMPLETE_SSO_EVENT) throw new Error(`no complete-sso; got ${JSON.stringify(this.got)}`);
    return m.data;
  }
}

/** One browser: its binding cookie, the /zoho-sso page's calls, and the popup's round trip through Zoho. */
class Browser {
  cookie: string | null = null;
  constructor(private readonly base: string) {}
  async start(): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${this.base}/api/sso/crossdomain_auth`, { method: 'POST', headers: { 'content-type': 'application/json', ...(this.cookie ? { cookie: this.cookie } : {}) }, body: JSON.stringify({ type: 'zohoinbox' }) });
    const set = res.headers.getSetCookie().find((c) => c.startsWith(`${SSO_BINDING_COOKIE}=`));
    if (set) this.cookie = set.split(';')[0];
    return { status: res.status, body: (await res.json()) as Json };
  }
  socket(crossKey: string): Promise<SsoSocket | number> {
    return SsoSocket.open(`${this.base.replace(/^http/, 'ws')}${SSO_WS_PATH}?cross_key=${encodeURIComponent(crossKey)}`, this.cookie);
  }
  /** The popup: Zoho's consent page, then back to the registered redirect URI (this server), then /complete-sso. */
  async popup(consentUrl: string): Promise<string> {
    const zoho = await fetch(consentUrl, { redirect: 'manual' });
    expect(zoho.status).toBe(302);
    const back = new URL(zoho.headers.get('location') as string);
    expect(`${back.origin}${back.pathname}`).toBe(`${APP_URL}/api/sso/zohoinbox/callback`);
    const res = await fetch(`${this.base}${back.pathname}${back.search}`, { redirect: 'manual', headers: this.cookie ? { cookie: this.cookie } : {} });
    expect(res.status).toBe(302);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    return res.headers.get('location') as string;
  }
}

const claimsOf = (token: string): Json => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Json;

/**
 * Zoho Inbox single sign-on over the realtime channel (spec 2 /zoho-sso, spec 4 popup states, spec 7
 * /sso/crossdomain_auth + the socket awaiting complete-sso; docs/decisions/0042), against a local server speaking
 * Zoho's OAuth endpoints.
 */
describe('Zoho Inbox single sign-on', () => {
  let t: TestApp;
  let zoho: LocalZoho;
  let seed: AuthBootstrapService;
  let account: string;
  let other: string;
  const ids: Record<string, string> = {};
  const zuser = (key: string, verified = true): ZohoUser => ({ sub: `6759${Object.keys(ids).length}${key.length}${key}`, email: `${key}@example.com`, email_verified: verified, name: `Agent ${key}` });

  const call = async (method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}/api${path}`, {
      method,
      headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const admin = (accountId = account, perms: string[] = [Permission.UserInviteView, Permission.UserInviteEdit, Permission.TenantOwner, Permission.StreamView]) =>
    t.token({ sub: accountId === account ? ids.owner : ids.otherOwner, acc: accountId, perms, roles: ['ROLE_USER'] });

  /** The whole dance as the page does it: start, open the socket, run the popup, read complete-sso. */
  const signOn = async (b: Browser, as: ZohoUser): Promise<CompleteSsoData> => {
    zoho.signInAs(as);
    const started = await b.start();
    expect(started.status).toBe(200);
    const s = await b.socket(started.body.cross_key as string);
    if (typeof s === 'number') throw new Error(`socket refused ${s}`);
    expect(await b.popup(started.body.url as string)).toBe(`${APP_URL}/complete-sso`);
    return s.complete();
  };

  beforeAll(async () => {
    zoho = await new LocalZoho().start();
    t = await createTestApp(({ keys }) => ({
      imports: [
        AuthModule.register({ privateKey: keys.privateKey, captcha: 'none', appUrl: APP_URL, zoho: { clientId: zoho.clientId, clientSecret: zoho.clientSecret, accountsUrl: zoho.url } }),
        GatewayModule.register({ mode: 'embedded' }),
      ],
    }));
    seed = t.app.get(AuthBootstrapService);
    await seed.ensureSystemRoles();
    account = (await seed.createAccount({ name: 'Acme' })).id;
    other = (await seed.createAccount({ name: 'Globex' })).id;
    const agentRole = (await seed.createRole({ accountId: account, name: 'Agents', permissions: [Permission.StreamView] })).id;
    const mk = async (key: string, accountId: string, status: 0 | 2, opts: { superAdmin?: boolean } = {}) => {
      const u = await seed.createUser({ email: `${key}@example.com`, password: 'correct horse battery', superAdmin: opts.superAdmin });
      await seed.addMember({ userId: u.id, accountId, platformRoleId: status === 2 ? agentRole : undefined, status });
      ids[key] = u.id;
    };
    await mk('owner', account, 0);
    await mk('otherOwner', other, 0);
    for (const k of ['agent', 'second', 'unverified', 'denied', 'pkce', 'victim', 'rejected']) await mk(k, account, 2);
    await mk('root', account, 0, { superAdmin: true });
  });
  afterAll(async () => {
    await t?.close();
    await zoho?.close();
  });

  it('an approved Zoho user gets a token and refresh token by complete-sso, locked to the approved account', async () => {
    const b = new Browser(t.url);
    const z = zuser('agent');
    // first sign-on: unknown to Switchboard, so pending (spec 4: "Pending for access approval ...")
    const first = await signOn(b, z);
    expect(first).toEqual({ status: 'pending', message: expect.stringMatching(/^Pending for access approval/) });

    // the account's admin sees the request for their member and approves it; the other account sees nothing
    const listed = await call('GET', '/sso/access_requests', admin());
    expect(listed.body).toEqual([expect.objectContaining({ type: 'zohoinbox', email: 'agent@example.com', status: 'pending', user: { id: Number(ids.agent), email: 'agent@example.com' } })]);
    expect((await call('GET', '/sso/access_requests', admin(other))).body).toEqual([]);
    expect((await call('POST', `/sso/access_requests/${listed.body[0].id}/approve`, admin(other))).status).toBe(404);
    const approved = await call('POST', `/sso/access_requests/${listed.body[0].id}/approve`, admin());
    expect(approved.body).toMatchObject({ status: 'approved', user: { id: Number(ids.agent) } });

    // second sign-on: the tokens arrive on the socket (the callback naming another accounts server changes nothing:
    // the code goes only to the configured one)
    zoho.accountsServerParam = 'http://127.0.0.1:9';
    const done = await signOn(b, z);
    zoho.accountsServerParam = null;
    expect(done.status).toBe('success');
    if (done.status !== 'success') return;
    expect(claimsOf(done.token)).toMatchObject({ sub: ids.agent, acc: account, perms: [Permission.StreamView], sa: false, imp: null });
    expect((await call('GET', '/users/connected', done.token)).body.email).toBe('agent@example.com');
    // the refresh token rotates, still in that account
    const refreshed = await call('POST', '/token_refresh', undefined, { refresh_token: done.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(claimsOf(refreshed.body.token as string)).toMatchObject({ sub: ids.agent, acc: account });
    // the PKCE verifier went with the code exchange (the local Zoho checks it against the challenge)
    expect(zoho.tokenRequests.at(-1)).toMatchObject({ grant_type: 'authorization_code', code_verifier: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
  });

  it('never widens: the session cannot switch to another account the member belongs to', async () => {
    await seed.addMember({ userId: ids.second, accountId: other, status: 0 });
    const z = zuser('second');
    const b = new Browser(t.url);
    await signOn(b, z);
    const req = (await call('GET', '/sso/access_requests', admin())).body.find((r: Json) => r.email === 'second@example.com');
    expect((await call('POST', `/sso/access_requests/${req.id}/approve`, admin())).status).toBe(200);
    // approved in Acme: Globex's owner no longer sees it and cannot take it over
    expect((await call('GET', '/sso/access_requests', admin(other))).body).toEqual([]);
    const done = await signOn(b, z);
    if (done.status !== 'success') throw new Error(JSON.stringify(done));
    const sw = await call('PUT', '/users/connected_update', done.token, { customer: Number(other) });
    expect(sw.status).toBe(403);
    expect(sw.body.code).toBe('ACCESS_DENIED');
  });

  it('the cross_key is single use and bound to the browser that asked for it', async () => {
    const b = new Browser(t.url);
    zoho.signInAs(zuser('agent'));
    const started = await b.start();
    const key = started.body.cross_key as string;
    expect(started.body.expires_in).toBe(600);
    // no cookie, another browser's cookie, a made-up key: the same "not found"
    const thief = new Browser(t.url);
    expect(await thief.socket(key)).toBe(404);
    await thief.start();
    expect(await thief.socket(key)).toBe(404);
    expect(await b.socket('x'.repeat(43))).toBe(404);
    // the first socket claims it; a second one, even from the same browser, is refused
    const s = await b.socket(key);
    if (typeof s === 'number') throw new Error(`refused ${s}`);
    expect(await b.socket(key)).toBe(409);
    await b.popup(started.body.url as string);
    expect((await s.complete()).status).toBe('success');
    // redeemed: nothing more to get with it
    expect(await b.socket(key)).toBe(409);
    // the callback's state works once: a replayed round trip finds no flow
    expect(await b.popup(started.body.url as string)).toBe(`${APP_URL}/complete-sso?status=unknown`);
  });

  it('a consent given in another browser (a link an attacker sent) delivers nothing to the attacker', async () => {
    const attacker = new Browser(t.url);
    zoho.signInAs(zuser('agent'));
    const started = await attacker.start();
    const s = await attacker.socket(started.body.cross_key as string);
    if (typeof s === 'number') throw new Error(`refused ${s}`);
    // the victim, signed in at Zoho, opens the attacker's consent URL in their own browser
    const victim = new Browser(t.url);
    await victim.start();
    await victim.popup(started.body.url as string);
    expect(await s.complete()).toEqual({ status: 'error', message: 'this sign-on was started in another browser' });
  });

  it('a Zoho user whose email Zoho has not verified stays pending and cannot be approved', async () => {
    const b = new Browser(t.url);
    const z = zuser('unverified', false);
    expect((await signOn(b, z)).status).toBe('pending');
    const [row] = (await call('GET', '/sso/access_requests', admin())).body.filter((r: Json) => r.email === 'unverified@example.com');
    expect(row).toBeUndefined();
    expect((await signOn(b, z)).status).toBe('pending');
  });

  it('a refused consent, a refused code, and a rejected user end in an error', async () => {
    const b = new Browser(t.url);
    zoho.refuseNext();
    expect(await signOn(b, zuser('denied'))).toEqual({ status: 'error', message: 'access to Zoho was not granted' });
    // Zoho answers a bad code with HTTP 200 and an error field: still an error
    zoho.failNextExchange();
    expect(await signOn(b, zuser('denied'))).toEqual({ status: 'error', message: 'Zoho refused the authorisation code (invalid_code)' });

    // a rejected request: the next sign-on is an error, not pending
    const z = zuser('rejected');
    await signOn(b, z);
    const req = (await call('GET', '/sso/access_requests', admin())).body.find((r: Json) => r.email === 'rejected@example.com');
    expect((await call('POST', `/sso/access_requests/${req.id}/reject`, admin())).body.status).toBe('rejected');
    expect((await signOn(b, z)).status).toBe('error');
  });

  it('approving needs USER_INVITE_EDIT and every permission the member holds; never a super admin', async () => {
    const b = new Browser(t.url);
    await signOn(b, zuser('pkce'));
    const req = (await call('GET', '/sso/access_requests', admin())).body.find((r: Json) => r.email === 'pkce@example.com');
    expect((await call('POST', `/sso/access_requests/${req.id}/approve`, admin(account, [Permission.UserInviteView]))).status).toBe(403);
    // the member holds STREAM_VIEW, the approver does not
    expect((await call('POST', `/sso/access_requests/${req.id}/approve`, admin(account, [Permission.UserInviteView, Permission.UserInviteEdit]))).status).toBe(403);
    expect((await call('GET', '/sso/access_requests', undefined)).status).toBe(401);

    await signOn(b, zuser('root'));
    expect((await call('GET', '/sso/access_requests', admin())).body.find((r: Json) => r.email === 'root@example.com')).toBeDefined();
    const root = (await call('GET', '/sso/access_requests', admin())).body.find((r: Json) => r.email === 'root@example.com');
    expect((await call('POST', `/sso/access_requests/${root.id}/approve`, admin())).status).toBe(404);
  });

  it('refuses an unknown type with a violation', async () => {
    const res = await fetch(`${t.url}/api/sso/crossdomain_auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'okta' }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).violations).toEqual([expect.objectContaining({ propertyPath: 'type' })]);
  });
});

describe('Zoho Inbox single sign-on without credentials', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(({ keys }) => ({ imports: [AuthModule.register({ privateKey: keys.privateKey, captcha: 'none' })] }));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('says clearly that it is not configured, and sets no cookie', async () => {
    const res = await fetch(`${t.url}/api/sso/crossdomain_auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'zohoinbox' }) });
    expect(res.status).toBe(503);
    expect(((await res.json()) as Json).message).toMatch(/not configured.*ZOHO_CLIENT_ID/);
    expect(res.headers.getSetCookie()).toEqual([]);
  });
});
