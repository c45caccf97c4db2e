import { Permission, UserSignedInV1 } from '@switchboard/contracts';
import { claimsOf, startAuth, type AuthTestApp } from './support';

describe('login-as', () => {
  let a: AuthTestApp;
  let account: string;
  let otherAccount: string;
  const ids: Record<string, string> = {};
  let viewerRole: string;
  const password = 'correct horse battery';

  beforeAll(async () => {
    a = await startAuth();
    await a.seed.ensureSystemRoles();
    account = (await a.seed.createAccount({ name: 'Acme' })).id;
    otherAccount = (await a.seed.createAccount({ name: 'Globex' })).id;
    const viewer = (await a.seed.createRole({ accountId: account, name: 'Viewer', permissions: ['STREAM_VIEW'] })).id;
    const mk = async (key: string, opts: { superAdmin?: boolean; status?: 0 | 2 | 3; role?: string | null; accountId?: string } = {}) => {
      const u = await a.seed.createUser({ email: `${key}@example.com`, password, superAdmin: opts.superAdmin });
      if (opts.status !== undefined) await a.seed.addMember({ userId: u.id, accountId: opts.accountId ?? account, platformRoleId: opts.role, status: opts.status });
      ids[key] = u.id;
    };
    await mk('owner', { status: 0 });
    await mk('agent', { status: 2, role: viewer });
    await mk('disabled', { status: 3, role: viewer });
    await mk('root', { superAdmin: true });
    await mk('otheradmin', { superAdmin: true, status: 2, role: viewer });
    await mk('outsider', { status: 2, role: null, accountId: otherAccount });
    // a viewer in Acme who owns Globex
    await mk('dual', { status: 2, role: viewer });
    await a.seed.addMember({ userId: ids.dual, accountId: otherAccount, status: 0 });
    viewerRole = viewer;
  });
  afterAll(async () => {
    await a?.close();
  });

  const loginAs = (token: string, email: string) => a.call<{ token: string; refresh_token: string; email: string; code?: string; message?: string }>('POST', '/login-as', { token, body: { email } });

  it('lets an admin open a session as a member of the account, audited with both ids, and exit back to their own', async () => {
    const own = await a.signIn('owner@example.com', password);
    const res = await loginAs(own.token, 'AGENT@example.com');
    expect(res.status).toBe(200);
    expect(res.body.email).toBe('agent@example.com');
    expect(claimsOf(res.body.token)).toMatchObject({ sub: ids.agent, imp: ids.owner, acc: account, perms: ['STREAM_VIEW'], sa: false });
    // the impersonated session works and says who it is
    const me = await a.call<{ email: string }>('GET', '/users/connected', { token: res.body.token });
    expect(me.body.email).toBe('agent@example.com');
    // its refresh keeps the impersonation
    const refreshed = await a.call<{ token: string; refresh_token: string }>('POST', '/token_refresh', { body: { refresh_token: res.body.refresh_token } });
    expect(claimsOf(refreshed.body.token)).toMatchObject({ sub: ids.agent, imp: ids.owner });

    const [audit] = await a.sql(`SELECT actor_id::text, target_id::text, account_id::text, action, ip FROM auth.audit_log WHERE action = 'login_as'`);
    expect(audit).toEqual({ actor_id: ids.owner, target_id: ids.agent, account_id: account, action: 'login_as', ip: '127.0.0.1' });
    const events = await a.events();
    expect(events).toContainEqual(expect.objectContaining({ type: UserSignedInV1.type, data: expect.objectContaining({ userId: ids.agent, impersonatorId: ids.owner }) }));

    // exit: the login-as session ends, the admin's own tokens (kept by the console) still work
    const exit = await a.call('POST', '/login-as/exit', { token: refreshed.body.token });
    expect(exit.body).toEqual({ status: 1 });
    expect((await a.call('POST', '/token_refresh', { body: { refresh_token: refreshed.body.refresh_token } })).status).toBe(401);
    expect((await a.call<{ email: string }>('GET', '/users/connected', { token: own.token })).body.email).toBe('owner@example.com');
    expect((await a.call('POST', '/token_refresh', { body: { refresh_token: own.refresh_token } })).status).toBe(200);
    const [exitAudit] = await a.sql(`SELECT actor_id::text, target_id::text FROM auth.audit_log WHERE action = 'login_as_exit'`);
    expect(exitAudit).toEqual({ actor_id: ids.owner, target_id: ids.agent });
    // exit outside login-as is refused
    expect((await a.call('POST', '/login-as/exit', { token: own.token })).status).toBe(403);
  });

  it('lets a super admin log in as a member of the account they entered', async () => {
    const res = await loginAs(a.tokenFor(ids.root, account, [], { sa: true }), 'agent@example.com');
    expect(res.status).toBe(200);
    expect(claimsOf(res.body.token)).toMatchObject({ sub: ids.agent, imp: ids.root });
  });

  it('never into a super admin', async () => {
    const res = await loginAs(a.tokenFor(ids.owner, account, [Permission.TenantOwner]), 'otheradmin@example.com');
    expect(res.status).toBe(403);
    expect((await loginAs(a.tokenFor(ids.root, account, [], { sa: true }), 'otheradmin@example.com')).status).toBe(403);
  });

  it('never nested: a login-as session cannot log in as someone else', async () => {
    const first = await loginAs(a.tokenFor(ids.root, account, [], { sa: true }), 'owner@example.com');
    expect(claimsOf(first.body.token).perms).toContain('TENANT_OWNER');
    const nested = await loginAs(first.body.token, 'agent@example.com');
    expect(nested.status).toBe(403);
    expect(nested.body.message).toMatch(/already logged in as/);
  });

  it('not for a member without the admin permission', async () => {
    const agent = await a.signIn('agent@example.com', password);
    const res = await loginAs(agent.token, 'owner@example.com');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('NO_PERMISSIONS');
  });

  it('only into an active member of the current account, and never into oneself', async () => {
    const admin = a.tokenFor(ids.owner, account, [Permission.TenantOwner]);
    expect((await loginAs(admin, 'outsider@example.com')).status).toBe(404);
    expect((await loginAs(admin, 'disabled@example.com')).status).toBe(404);
    expect((await loginAs(admin, 'nobody@example.com')).status).toBe(404);
    expect((await loginAs(admin, 'owner@example.com')).status).toBe(403);
    // an admin holding fewer permissions than the target cannot become them
    const narrowAdmin = a.tokenFor(ids.owner, account, [Permission.TenantOwner]);
    const stronger = await loginAs(narrowAdmin, 'agent@example.com');
    expect(stronger.status).toBe(403);
    expect(stronger.body.message).toMatch(/STREAM_VIEW/);
    expect(await a.sql(`SELECT count(*)::int AS n FROM auth.audit_log WHERE action = 'login_as' AND target_id IN ($1, $2)`, [ids.outsider, ids.disabled])).toEqual([{ n: 0 }]);
  });

  describe('a login-as session is pinned to the account it was opened for', () => {
    const switchTo = (token: string, customer: unknown) => a.call<{ token?: string; refresh_token?: string; code?: string; customer?: { id: number } }>('PUT', '/users/connected_update', { token, body: { customer } });
    const keysIn = async (acc: string) => (await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM auth.api_key WHERE account_id = $1`, [acc]))[0].n;

    it('refuses switching to another account the user can enter, and no API key can be made there', async () => {
      const own = await a.signIn('owner@example.com', password);
      const res = await loginAs(own.token, 'dual@example.com');
      expect(res.status).toBe(200);
      expect(claimsOf(res.body.token)).toMatchObject({ sub: ids.dual, imp: ids.owner, acc: account });
      // the user, signed in themselves, may switch to Globex; as a login-as session: refused, spec code for denied access
      const refused = await switchTo(res.body.token, Number(otherAccount));
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('ACCESS_DENIED');
      expect(refused.body.token).toBeUndefined();
      expect((await switchTo(res.body.token, `/api/customers/${otherAccount}`)).status).toBe(403);
      // nothing changed: the session's refresh token still works, still in Acme, still the viewer's permissions
      const refreshed = await a.call<{ token: string; refresh_token: string }>('POST', '/token_refresh', { body: { refresh_token: res.body.refresh_token } });
      expect(refreshed.status).toBe(200);
      expect(claimsOf(refreshed.body.token)).toMatchObject({ sub: ids.dual, imp: ids.owner, acc: account, perms: ['STREAM_VIEW'], sa: false });
      // no API key in Globex (nor in Acme: the viewer may not)
      const before = await keysIn(otherAccount);
      const key = await a.call('POST', '/api_keys', { token: refreshed.body.token, body: { name: 'escape', permissions: [] } });
      expect(key.status).toBe(403);
      expect(await keysIn(otherAccount)).toBe(before);
      // "switching" to the account it is in is allowed and stays pinned
      const same = await switchTo(refreshed.body.token, Number(account));
      expect(same.status).toBe(200);
      expect(claimsOf(same.body.token as string)).toMatchObject({ acc: account, imp: ids.owner, perms: ['STREAM_VIEW'] });
      // the user's own session is not pinned
      const self = await a.signIn('dual@example.com', password);
      const moved = await switchTo(self.token, Number(otherAccount));
      expect(moved.status).toBe(200);
      expect(claimsOf(moved.body.token as string)).toMatchObject({ acc: otherAccount, imp: null });
    });

    it('never widens the original grant on refresh or reissue, even when the user gains permissions or becomes a super admin', async () => {
      const own = await a.signIn('owner@example.com', password);
      const res = await loginAs(own.token, 'dual@example.com');
      expect(claimsOf(res.body.token).perms).toEqual(['STREAM_VIEW']);
      // the user is promoted in Acme after the login-as began
      const editor = (await a.seed.createRole({ accountId: account, name: 'Editor', permissions: ['STREAM_VIEW', 'API_KEY_ADD', 'API_KEY_VIEW'] })).id;
      await a.sql(`UPDATE auth.membership SET platform_role_id = $1 WHERE user_id = $2 AND account_id = $3`, [editor, ids.dual, account]);
      await a.sql(`UPDATE auth.app_user SET super_admin = true WHERE id = $1`, [ids.dual]);
      try {
        const refreshed = await a.call<{ token: string; refresh_token: string }>('POST', '/token_refresh', { body: { refresh_token: res.body.refresh_token } });
        expect(claimsOf(refreshed.body.token)).toMatchObject({ acc: account, imp: ids.owner, perms: ['STREAM_VIEW'], sa: false });
        const reissued = await switchTo(refreshed.body.token, Number(account));
        expect(claimsOf(reissued.body.token as string)).toMatchObject({ acc: account, perms: ['STREAM_VIEW'], sa: false });
        expect((await switchTo(refreshed.body.token, Number(otherAccount))).status).toBe(403);
        expect((await a.call('POST', '/api_keys', { token: reissued.body.token as string, body: { name: 'wider', permissions: [] } })).status).toBe(403);
      } finally {
        await a.sql(`UPDATE auth.app_user SET super_admin = false WHERE id = $1`, [ids.dual]);
        await a.sql(`UPDATE auth.membership SET platform_role_id = $1 WHERE user_id = $2 AND account_id = $3`, [viewerRole, ids.dual, account]);
      }
    });

    it('other paths that issue tokens keep the pin: password change and invite acceptance are refused, the live-channel token is the same account', async () => {
      const own = await a.signIn('owner@example.com', password);
      const res = await loginAs(own.token, 'dual@example.com');
      const pw = await a.call('POST', '/users/reset_password/logged_in_update_password', { token: res.body.token, body: { oldPassword: password, password: 'another horse battery staple' } });
      expect(pw.status).toBe(403);
      const live = await a.call<{ token: string }>('GET', '/users/async', { token: res.body.token });
      expect(live.status).toBe(200);
      expect(claimsOf(live.body.token)).toMatchObject({ acc: account, imp: ids.owner, perms: [] });
      // a real invite of the user to a third account: the login-as session cannot take it up
      const initech = (await a.seed.createAccount({ name: 'Initech' })).id;
      const boss = await a.seed.createUser({ email: 'boss@initech.example', password });
      await a.seed.addMember({ userId: boss.id, accountId: initech, status: 0 });
      const role = (await a.seed.createRole({ accountId: initech, name: 'Viewer', permissions: ['STREAM_VIEW'] })).id;
      const sent = await a.call('POST', '/user_invites', { token: a.tokenFor(boss.id, initech, Object.values(Permission)), body: { email: 'dual@example.com', user_roles_ids: [Number(role)] } });
      expect(sent.status).toBe(201);
      const m = /\/team-member-invite\/(\d+)\/(\d+)\/([A-Za-z0-9_-]+)/.exec(a.mailTo('dual@example.com').text) as RegExpExecArray;
      const link = { customerID: m[1], inviteID: m[2], inviteToken: m[3] };
      const accepted = await a.call('POST', '/user_invites/accept', { token: res.body.token, body: link });
      expect(accepted.status).toBe(403);
      expect(await a.sql(`SELECT count(*)::int AS n FROM auth.membership WHERE user_id = $1 AND account_id = $2`, [ids.dual, initech])).toEqual([{ n: 0 }]);
      // the user themselves can
      const self = await a.signIn('dual@example.com', password);
      expect((await a.call('POST', '/user_invites/accept', { token: self.token, body: link })).status).toBe(200);
    });
  });
});
