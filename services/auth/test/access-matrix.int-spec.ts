import { Permission, type RealtimeMessage } from '@switchboard/contracts';
import { listRoutes } from '@switchboard/platform';
import { ALL_ROUTES } from './routes';
import { claimsOf, startAuth, type AuthTestApp } from './support';

type RouteKey = (typeof ALL_ROUTES)[number];

interface Req {
  path: string;
  body?: unknown;
}

interface Tenant {
  name: string;
  account: string;
  owner: string;
  ownerToken: string;
  member: string;
  memberEmail: string;
  emptyRole: string;
  emptyInboxRole: string;
  invite: number;
  apiKey: number;
  /** A Zoho user waiting for access with the member's (verified) address. */
  ssoRequest: number;
}

const ALL = Object.values(Permission);
const password = 'correct horse battery';

/**
 * Every route of the auth module, walked three ways: each declares its access; a member of account A calling it with
 * account B's ids gets 404 or 403 and changes nothing of B; each permission-gated route is refused without its
 * permission (changing nothing) and allowed with it.
 */
describe('auth routes: access declarations, tenant isolation and permissions', () => {
  let a: AuthTestApp;
  let A: Tenant;
  let B: Tenant;
  let seq = 0;

  const tenant = async (name: string): Promise<Tenant> => {
    const account = (await a.seed.createAccount({ name })).id;
    const owner = (await a.seed.createUser({ email: `owner@${name}.test`, password })).id;
    await a.seed.addMember({ userId: owner, accountId: account, status: 0 });
    const ownerToken = a.tokenFor(owner, account, ALL);
    const emptyRole = (await a.seed.createRole({ accountId: account, name: 'Empty', permissions: [] })).id;
    const emptyInboxRole = (await a.seed.createRole({ accountId: account, name: 'Empty inbox', roleType: 'inbox', permissions: [] })).id;
    const memberEmail = `member@${name}.test`;
    const member = (await a.seed.createUser({ email: memberEmail, password })).id;
    await a.seed.addMember({ userId: member, accountId: account, platformRoleId: emptyRole, status: 2 });
    const invite = await a.call<{ id: number }>('POST', '/user_invites', { token: ownerToken, body: { email: `invitee@${name}.test`, user_roles_ids: [emptyRole] } });
    const key = await a.call<{ id: number }>('POST', '/api_keys', { token: ownerToken, body: { name: 'Key' } });
    if (invite.status !== 201 || key.status !== 201) throw new Error(`fixtures of ${name}: ${invite.status} ${key.status}`);
    return { name, account, owner, ownerToken, member, memberEmail, emptyRole, emptyInboxRole, invite: invite.body.id, apiKey: key.body.id, ssoRequest: await ssoRequest(memberEmail) };
  };

  const ssoRequest = async (email: string): Promise<number> =>
    Number((await a.sql<{ id: string }>(`INSERT INTO auth.sso_identity (provider, subject, email, email_verified, name) VALUES ('zohoinbox', $1, $2, true, 'Zoho user') RETURNING id`, [`z${++seq}-${email}`, email]))[0].id);

  // fresh things a route may change or delete, in A
  const fresh = {
    ssoRequest: async () => {
      const email = `zoho${++seq}@alpha.test`;
      const u = (await a.seed.createUser({ email, password })).id;
      await a.seed.addMember({ userId: u, accountId: A.account, platformRoleId: A.emptyRole, status: 2 });
      return ssoRequest(email);
    },
    member: async () => {
      const u = (await a.seed.createUser({ email: `m${++seq}@a.test`, password })).id;
      await a.seed.addMember({ userId: u, accountId: A.account, platformRoleId: A.emptyRole, status: 2 });
      return u;
    },
    role: async () => (await a.seed.createRole({ accountId: A.account, name: `R${++seq}`, permissions: [] })).id,
    invite: async () => (await a.call<{ id: number }>('POST', '/user_invites', { token: A.ownerToken, body: { email: `i${++seq}@a.test`, user_roles_ids: [A.emptyRole] } })).body.id,
    apiKey: async () => (await a.call<{ id: number }>('POST', '/api_keys', { token: A.ownerToken, body: { name: `K${++seq}` } })).body.id,
  };

  /** A request of each permission-gated route that succeeds in A with exactly the route's permissions. */
  const allowed: Partial<Record<RouteKey, () => Promise<Req>>> = {
    'GET /users': async () => ({ path: '/users' }),
    'POST /users/roles': async () => ({ path: '/users/roles', body: { userId: await fresh.member(), user_roles_ids: [A.emptyRole, A.emptyInboxRole] } }),
    'GET /users/:id': async () => ({ path: `/users/${A.member}` }),
    'PUT /users/:id': async () => ({ path: `/users/${await fresh.member()}`, body: { status: 3 } }),
    'DELETE /users/:id': async () => ({ path: `/users/${await fresh.member()}` }),
    'GET /user_roles': async () => ({ path: '/user_roles' }),
    'GET /user_roles/permissions': async () => ({ path: '/user_roles/permissions' }),
    'GET /user_roles/inbox': async () => ({ path: '/user_roles/inbox' }),
    'POST /user_roles/inbox/update': async () => ({ path: '/user_roles/inbox/update', body: { roles: [{ id: A.emptyInboxRole, permissions: [] }] } }),
    'GET /user_roles/:id': async () => ({ path: `/user_roles/${A.emptyRole}` }),
    'POST /user_roles': async () => ({ path: '/user_roles', body: {} }),
    'PUT /user_roles/:id': async () => ({ path: `/user_roles/${await fresh.role()}`, body: { description: 'changed' } }),
    'DELETE /user_roles/:id': async () => ({ path: `/user_roles/${await fresh.role()}` }),
    'GET /user_invites': async () => ({ path: '/user_invites' }),
    'GET /user_invites/:id': async () => ({ path: `/user_invites/${A.invite}` }),
    'POST /user_invites': async () => ({ path: '/user_invites', body: { email: `new${++seq}@a.test`, user_roles_ids: [A.emptyRole] } }),
    'POST /user_invites/:id/resend': async () => ({ path: `/user_invites/${await fresh.invite()}/resend` }),
    'PUT /user_invites/:id': async () => ({ path: `/user_invites/${await fresh.invite()}`, body: { firstname: 'Changed' } }),
    'DELETE /user_invites/:id': async () => ({ path: `/user_invites/${await fresh.invite()}` }),
    'POST /login-as': async () => ({ path: '/login-as', body: { email: A.memberEmail } }),
    'GET /api_keys': async () => ({ path: '/api_keys' }),
    'GET /api_keys/:id': async () => ({ path: `/api_keys/${A.apiKey}` }),
    'POST /api_keys': async () => ({ path: '/api_keys', body: { name: 'Allowed' } }),
    'POST /api_keys/:id/regenerate': async () => ({ path: `/api_keys/${await fresh.apiKey()}/regenerate` }),
    'PUT /api_keys/:id': async () => ({ path: `/api_keys/${await fresh.apiKey()}`, body: { name: 'Renamed' } }),
    'DELETE /api_keys/:id': async () => ({ path: `/api_keys/${await fresh.apiKey()}` }),
    'GET /sso/access_requests': async () => ({ path: '/sso/access_requests' }),
    'POST /sso/access_requests/:id/approve': async () => ({ path: `/sso/access_requests/${await fresh.ssoRequest()}/approve` }),
    'POST /sso/access_requests/:id/reject': async () => ({ path: `/sso/access_requests/${await fresh.ssoRequest()}/reject` }),
  };

  /**
   * What A's owner (every permission in A) sends to reach B. `null`: the route takes no tenant id (its tenant is the
   * caller's own session, token or email), with the reason.
   */
  const foreign: Record<RouteKey, (() => Req) | { none: string }> = {
    'POST /login_check': { none: 'credentials, no tenant' },
    'POST /login/manual': { none: 'credentials, no tenant' },
    'POST /token_refresh': { none: 'the refresh token names its own session' },
    'POST /logout': { none: "the caller's own session" },
    'GET /users/connected': { none: "the caller's own profile" },
    'GET /users/async': { none: "the token's account only (checked below)" },
    'PUT /users/connected_update': () => ({ path: '/users/connected_update', body: { customer: Number(B.account) } }),
    'POST /users/reset_password/send_email': { none: 'by email, same answer for everyone' },
    'POST /users/reset_password/check_token': { none: 'by email and secret token' },
    'POST /users/reset_password/update_password': { none: 'by email and secret token' },
    'POST /users/reset_password/logged_in_update_password': { none: "the caller's own password" },
    'GET /users': { none: 'lists the caller account (checked below)' },
    'POST /users/roles': () => ({ path: '/users/roles', body: { userId: B.member, user_roles_ids: [A.emptyRole] } }),
    'GET /users/:id': () => ({ path: `/users/${B.member}` }),
    'PUT /users/:id': () => ({ path: `/users/${B.member}`, body: { status: 3 } }),
    'DELETE /users/:id': () => ({ path: `/users/${B.member}` }),
    'PUT /users/:id/disable': () => ({ path: `/users/${B.member}/disable` }),
    'PUT /users/:id/enable': () => ({ path: `/users/${B.member}/enable` }),
    'GET /user_roles': { none: 'lists the caller account (checked below)' },
    'GET /user_roles/permissions': { none: 'the same for everyone' },
    'GET /user_roles/inbox': { none: 'lists the caller account (checked below)' },
    'POST /user_roles/inbox/update': () => ({ path: '/user_roles/inbox/update', body: { roles: [{ id: B.emptyInboxRole, permissions: [] }] } }),
    'GET /user_roles/:id': () => ({ path: `/user_roles/${B.emptyRole}` }),
    'POST /user_roles': () => ({ path: '/user_roles', body: { copyOf: B.emptyRole } }),
    'PUT /user_roles/:id': () => ({ path: `/user_roles/${B.emptyRole}`, body: { description: 'hacked' } }),
    'DELETE /user_roles/:id': () => ({ path: `/user_roles/${B.emptyRole}` }),
    'POST /user_invites/check': () => ({ path: '/user_invites/check', body: { customerID: B.account, inviteID: B.invite, inviteToken: 'guessed-token' } }),
    'POST /user_invites/register': () => ({ path: '/user_invites/register', body: { customerID: B.account, inviteID: B.invite, inviteToken: 'guessed-token', password } }),
    'POST /user_invites/accept': () => ({ path: '/user_invites/accept', body: { customerID: B.account, inviteID: B.invite, inviteToken: 'guessed-token' } }),
    'GET /user_invites': { none: 'lists the caller account (checked below)' },
    'GET /user_invites/:id': () => ({ path: `/user_invites/${B.invite}` }),
    'POST /user_invites': () => ({ path: '/user_invites', body: { email: 'x@a.test', user_roles_ids: [B.emptyRole] } }),
    'POST /user_invites/:id/resend': () => ({ path: `/user_invites/${B.invite}/resend` }),
    'PUT /user_invites/:id': () => ({ path: `/user_invites/${B.invite}`, body: { firstname: 'Hacked' } }),
    'DELETE /user_invites/:id': () => ({ path: `/user_invites/${B.invite}` }),
    'POST /login-as': () => ({ path: '/login-as', body: { email: B.memberEmail } }),
    'POST /login-as/exit': { none: "ends the caller's own login-as session" },
    'POST /api_keys/token': { none: 'the key names its own account' },
    'GET /api_keys': { none: 'lists the caller account (checked below)' },
    'GET /api_keys/:id': () => ({ path: `/api_keys/${B.apiKey}` }),
    'POST /api_keys': { none: 'creates in the caller account only' },
    'POST /api_keys/:id/regenerate': () => ({ path: `/api_keys/${B.apiKey}/regenerate` }),
    'PUT /api_keys/:id': () => ({ path: `/api_keys/${B.apiKey}`, body: { permissions: ['STREAM_VIEW'] } }),
    'DELETE /api_keys/:id': () => ({ path: `/api_keys/${B.apiKey}` }),
    'POST /sso/crossdomain_auth': { none: 'starts an anonymous sign-on; no tenant' },
    'GET /sso/zohoinbox/callback': { none: 'the state names its own flow' },
    'POST /sso/crossdomain_auth/await': { none: 'the cross_key and the binding cookie name their own flow' },
    'GET /sso/access_requests': { none: 'lists the caller account (checked below)' },
    'POST /sso/access_requests/:id/approve': () => ({ path: `/sso/access_requests/${B.ssoRequest}/approve` }),
    'POST /sso/access_requests/:id/reject': () => ({ path: `/sso/access_requests/${B.ssoRequest}/reject` }),
  };

  /** Everything of one account in the auth schema, to compare before and after. */
  const stateOf = async (account: string) =>
    Promise.all([
      a.sql(`SELECT * FROM auth.account WHERE id = $1`, [account]),
      a.sql(`SELECT * FROM auth.role WHERE account_id = $1 ORDER BY id`, [account]),
      a.sql(`SELECT * FROM auth.membership WHERE account_id = $1 ORDER BY id`, [account]),
      a.sql(`SELECT * FROM auth.invite WHERE account_id = $1 ORDER BY id`, [account]),
      a.sql(`SELECT * FROM auth.api_key WHERE account_id = $1 ORDER BY id`, [account]),
      a.sql(`SELECT u.* FROM auth.app_user u JOIN auth.membership ms ON ms.user_id = u.id WHERE ms.account_id = $1 ORDER BY u.id`, [account]),
      a.sql(`SELECT f.id, f.revoked_at FROM auth.session_family f JOIN auth.membership ms ON ms.user_id = f.user_id WHERE ms.account_id = $1 ORDER BY f.id`, [account]),
      a.sql(
        `SELECT i.* FROM auth.sso_identity i WHERE i.account_id = $1 OR i.email IN (SELECT u.email FROM auth.app_user u JOIN auth.membership ms ON ms.user_id = u.id WHERE ms.account_id = $1) ORDER BY i.id`,
        [account],
      ),
    ]);

  const split = (k: RouteKey) => {
    const [method, path] = k.split(' ');
    return { method, path };
  };

  beforeAll(async () => {
    a = await startAuth();
    await a.seed.ensureSystemRoles();
    A = await tenant('alpha');
    B = await tenant('beta');
  });
  afterAll(async () => {
    await a?.close();
  });

  it('declares access on every registered route, and this test knows every route', () => {
    const routes = listRoutes(a.t.app);
    expect(routes.filter((r) => !r.rule).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual([...ALL_ROUTES].sort());
    const gated = routes.filter((r) => r.rule?.kind === 'permissions').map((r) => `${r.method} ${r.path}` as RouteKey);
    expect(gated.filter((k) => !allowed[k])).toEqual([]);
  });

  it('answers 404 or 403 to a member of A calling with B ids, and changes nothing of B', async () => {
    const before = await stateOf(B.account);
    const mailsBefore = a.t.mailbox.list().length;
    const answers: Array<[string, number]> = [];
    for (const key of ALL_ROUTES) {
      const c = foreign[key];
      if ('none' in c) continue;
      const { method } = split(key);
      const req = c();
      const res = await a.call(method, req.path, { token: A.ownerToken, body: req.body });
      answers.push([key, res.status]);
    }
    expect(answers.filter(([, s]) => s !== 404 && s !== 403)).toEqual([]);
    expect(answers.length).toBeGreaterThan(20);
    expect(await stateOf(B.account)).toEqual(before);
    expect(a.t.mailbox.list().length).toBe(mailsBefore);
  });

  it('lists nothing of B to A', async () => {
    const sso = await a.call<Array<{ email: string }>>('GET', '/sso/access_requests', { token: A.ownerToken });
    expect(sso.body.map((r) => r.email)).toEqual([A.memberEmail]);
    const lists = await Promise.all(['/users', '/user_roles', '/user_roles/inbox', '/user_invites', '/api_keys'].map((p) => a.call<{ items: Array<Record<string, unknown>> }>('GET', p, { token: A.ownerToken })));
    for (const l of lists) expect(l.status).toBe(200);
    const [users, roles, inbox, invites, keys] = lists.map((l) => l.body.items);
    expect(users.map((u) => u.email)).not.toContain(B.memberEmail);
    expect(users.map((u) => u.id)).not.toContain(Number(B.owner));
    for (const r of [...roles, ...inbox]) expect(r.customer === null || r.customer === Number(A.account)).toBe(true);
    expect(invites.map((i) => i.id)).not.toContain(B.invite);
    expect(keys.map((k) => k.id)).not.toContain(B.apiKey);
    expect(claimsOf((await a.call<{ token: string }>('GET', '/users/async', { token: A.ownerToken })).body.token).acc).toBe(A.account);
  });

  it("sends A's realtime subscribers nothing of B", async () => {
    const seen: Record<string, RealtimeMessage[]> = { A: [], B: [] };
    const offA = await a.t.realtime.subscribe(`rt.${A.account}.>`, (m) => void seen.A.push(m));
    const offB = await a.t.realtime.subscribe(`rt.${B.account}.>`, (m) => void seen.B.push(m));
    try {
      const role = await a.call<{ id: number }>('POST', '/user_roles', { token: B.ownerToken, body: {} });
      await a.call('POST', '/user_invites', { token: B.ownerToken, body: { email: `rt@${B.name}.test`, user_roles_ids: [role.body.id] } });
      await a.call('POST', '/api_keys', { token: B.ownerToken, body: { name: 'Realtime' } });
      await a.call('POST', '/users/roles', { token: B.ownerToken, body: { userId: B.member, user_roles_ids: [B.emptyRole] } });
      // and A trying B's ids publishes nothing anywhere
      await a.call('DELETE', `/user_roles/${B.emptyRole}`, { token: A.ownerToken });
      await new Promise((r) => setImmediate(r));
      expect(seen.B.map((m) => m.type).sort()).toEqual(['api_keys.changed', 'invites.changed', 'roles.changed', 'team.changed']);
      expect(seen.B.every((m) => m.accountId === B.account)).toBe(true);
      expect(seen.A).toEqual([]);
    } finally {
      await offA();
      await offB();
    }
  });

  it('refuses each gated route without its permission, changing nothing, and allows it with exactly that permission', async () => {
    const routes = listRoutes(a.t.app).filter((r) => r.rule?.kind === 'permissions');
    const refusedWrongly: string[] = [];
    const notAllowed: string[] = [];
    for (const r of routes) {
      const key = `${r.method} ${r.path}` as RouteKey;
      const needed = r.rule!.kind === 'permissions' ? r.rule!.permissions : [];
      const req = await allowed[key]!();
      const before = await stateOf(A.account);
      const without = await a.call(r.method, req.path, { token: a.tokenFor(A.owner, A.account, ALL.filter((p) => !needed.includes(p))), body: req.body });
      if (without.status !== 403 || without.body.code !== 'NO_PERMISSIONS') refusedWrongly.push(`${key}: ${without.status}`);
      expect(await stateOf(A.account)).toEqual(before);
      const withIt = await a.call(r.method, req.path, { token: a.tokenFor(A.owner, A.account, needed), body: req.body });
      if (withIt.status < 200 || withIt.status > 299) notAllowed.push(`${key}: ${withIt.status} ${JSON.stringify(withIt.body)}`);
    }
    expect(refusedWrongly).toEqual([]);
    expect(notAllowed).toEqual([]);
    expect(routes.length).toBe(Object.keys(allowed).length);
  });

  it('refuses every route that needs a session to a caller without a token', async () => {
    const routes = listRoutes(a.t.app).filter((r) => r.rule?.kind !== 'public');
    for (const r of routes) {
      const res = await a.call(r.method, r.path.replace(':id', '1'), { body: r.method === 'GET' ? undefined : {} });
      expect([r.path, res.status, res.body.code]).toEqual([r.path, 401, '0x11']);
    }
  });

  it('refuses the account-gated routes to a session that has not chosen an account', async () => {
    const noAccount = a.tokenFor(A.owner, null, ALL);
    for (const r of listRoutes(a.t.app).filter((x) => x.rule?.kind === 'permissions' || (x.rule?.kind === 'authenticated' && x.rule.accountRequired))) {
      const res = await a.call(r.method, r.path.replace(':id', '1'), { token: noAccount, body: r.method === 'GET' ? undefined : {} });
      expect([r.path, res.status]).toEqual([r.path, 403]);
    }
  });

  it('refuses the management routes to an API key token and a live-channel token, whatever permissions they carry', async () => {
    const keyToken = a.t.token({ sub: `apikey:${A.apiKey}`, acc: A.account, perms: ALL, roles: ['ROLE_API_KEY'], email: '' });
    const live = a.t.token({ sub: A.owner, acc: A.account, perms: ALL, roles: ['ROLE_REALTIME'] });
    for (const token of [keyToken, live]) {
      for (const key of ['GET /users', 'POST /user_roles', 'GET /api_keys', 'POST /login-as'] as const) {
        const { method, path } = split(key);
        const body = key === 'POST /login-as' ? { email: A.memberEmail } : method === 'GET' ? undefined : {};
        expect([key, (await a.call(method, path, { token, body })).status]).toEqual([key, 403]);
      }
    }
  });
});
