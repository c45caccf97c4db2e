import { Controller, Get, Module } from '@nestjs/common';
import { Permission, Topics } from '@switchboard/contracts';
import { Authenticated, CurrentPrincipal, RevocationList, TokenVerifier, type Principal } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { GatewayModule, ReadinessService } from '@switchboard/gateway';
import { openSse } from '../services/gateway/test/sse-client';
import { claimsOf, startAuth, type AuthTestApp } from '../services/auth/test/support';
import { RevocationSnapshotLoader } from '../services/auth/src/consumers/revocation-mirror.consumer';

/** Another service: any route behind the platform's guard. */
@Controller('probe')
class ProbeController {
  @Get() @Authenticated()
  who(@CurrentPrincipal() p: Principal): { sub: string | null; account: string | null } {
    return { sub: p.userId, account: p.accountId };
  }
}
@Module({ controllers: [ProbeController] })
class ProbeModule {}

/**
 * Revocation within a second (issue 17, docs/decisions/0029): signing out, a refresh-token family revoked, a user
 * disabled in or removed from an account, a role changed, an API key deleted. Distributed mode in one jest process:
 * auth; another service fed by auth's events over its own bus (as a Kafka consumer group per instance would be); the
 * gateway without a bus, in front of auth, fed by auth's mirror on the shared realtime fan-out (NATS in production).
 *
 * Assertions poll until the token is refused with a generous timeout (no timing assertion): the guarantee is that
 * every step is pushed, never polled (the outbox relay is kicked on commit, the bus and the fan-out deliver at once).
 */
describe('revocation: every service refuses a revoked access token, and the gateway closes its live channel', () => {
  let auth: AuthTestApp;
  let other: TestApp;
  let gateway: TestApp;
  let account: string;
  let accountB: string;
  let ownerToken: string;
  let viewerRole: string;
  let editorRole: string;
  let accountBRole: string;
  const password = 'correct horse battery';
  let seq = 0;

  beforeAll(async () => {
    auth = await startAuth();
    await auth.seed.ensureSystemRoles();
    account = (await auth.seed.createAccount({ name: 'Revoke Co' })).id;
    accountB = (await auth.seed.createAccount({ name: 'Other Co' })).id;
    const owner = await auth.seed.createUser({ email: 'owner@revoke.test', password });
    await auth.seed.addMember({ userId: owner.id, accountId: account, status: 0 });
    ownerToken = auth.tokenFor(owner.id, account, Object.values(Permission));
    viewerRole = (await auth.seed.createRole({ accountId: account, name: 'Viewer', permissions: ['STREAM_VIEW'] })).id;
    editorRole = (await auth.seed.createRole({ accountId: account, name: 'Editor', permissions: ['STREAM_VIEW', 'CAMPAIGN_VIEW'] })).id;
    accountBRole = (await auth.seed.createRole({ accountId: accountB, name: 'Viewer B', permissions: ['STREAM_VIEW'] })).id;

    other = await createTestApp(() => ({ imports: [ProbeModule], keys: auth.t.keys }));
    // auth's events reach the other service's bus, as every consumer group of a Kafka topic sees every event
    await auth.t.bus.subscribe({ group: 'bridge-to-other', topics: [Topics.Auth], handler: async (e) => other.bus.publish([{ ...e, topic: Topics.Auth }]) });

    gateway = await createTestApp(() => ({
      imports: [GatewayModule.register({ mode: 'distributed', routes: { auth: auth.t.url }, proxy: { table: { users: 'auth', logout: 'auth' } } })],
      keys: auth.t.keys,
      realtime: auth.t.realtime,
      followAccounts: false,
    }));
    gateway.app.get(ReadinessService).markReady();
  });
  afterAll(async () => {
    await gateway?.close();
    await other?.close();
    await auth?.close();
  });

  /** A member of the account (and of account B when asked) with a real session from the PIN sign-in. */
  async function member(opts: { alsoInB?: boolean } = {}): Promise<{ id: string; email: string; session: { token: string; refresh_token: string } }> {
    const email = `m${++seq}@revoke.test`;
    const u = await auth.seed.createUser({ email, password });
    await auth.seed.addMember({ userId: u.id, accountId: account, platformRoleId: viewerRole, status: 2 });
    if (opts.alsoInB) await auth.seed.addMember({ userId: u.id, accountId: accountB, platformRoleId: accountBRole, status: 2 });
    const session = await auth.signIn(email, password);
    if (claimsOf(session.token).acc !== account) {
      const moved = await auth.call<{ token: string; refresh_token: string }>('PUT', '/users/connected_update', { token: session.token, body: { customer: Number(account) } });
      return { id: u.id, email, session: moved.body };
    }
    return { id: u.id, email, session };
  }

  const viaGateway = async (token: string) => (await fetch(`${gateway.url}/api/users/connected`, { headers: { authorization: `Bearer ${token}` } })).status;
  const viaOther = async (token: string) => (await fetch(`${other.url}/api/probe`, { headers: { authorization: `Bearer ${token}` } })).status;

  /** Polls until `check` answers 401 (5 s at most, generous: the path is push-only and takes milliseconds). */
  async function refused(check: () => Promise<number>, what: string): Promise<void> {
    const end = Date.now() + 5000;
    let status = await check();
    while (status !== 401) {
      if (Date.now() > end) throw new Error(`${what} still answers ${status}`);
      await new Promise((r) => setTimeout(r, 25));
      status = await check();
    }
  }

  async function expectRefusedEverywhere(token: string): Promise<void> {
    await refused(() => viaGateway(token), 'auth behind the gateway');
    await refused(() => viaOther(token), 'the other service');
    const body = (await (await fetch(`${other.url}/api/probe`, { headers: { authorization: `Bearer ${token}` } })).json()) as { code: string };
    expect(body.code).toBe('0x14');
  }

  it('signing out: the session token is refused everywhere, and its refresh token no longer works', async () => {
    const m = await member();
    expect(await viaGateway(m.session.token)).toBe(200);
    expect(await viaOther(m.session.token)).toBe(200);
    expect((await fetch(`${gateway.url}/api/logout`, { method: 'POST', headers: { authorization: `Bearer ${m.session.token}` } })).status).toBe(204);
    await expectRefusedEverywhere(m.session.token);
    expect((await auth.call('POST', '/token_refresh', { body: { refresh_token: m.session.refresh_token } })).status).toBe(401);
  });

  it('a refresh-token family revoked (a used refresh token presented again): every token of the family is refused', async () => {
    const m = await member();
    const second = await auth.call<{ token: string; refresh_token: string }>('POST', '/token_refresh', { body: { refresh_token: m.session.refresh_token } });
    expect(second.status).toBe(200);
    expect(await viaOther(second.body.token)).toBe(200);
    expect((await auth.call('POST', '/token_refresh', { body: { refresh_token: m.session.refresh_token } })).status).toBe(401);
    await expectRefusedEverywhere(second.body.token);
    await expectRefusedEverywhere(m.session.token);
    expect((await auth.call('POST', '/token_refresh', { body: { refresh_token: second.body.refresh_token } })).status).toBe(401);
  });

  it("a user disabled in an account: refused there at once, while the same user's session in another account goes on", async () => {
    const m = await member({ alsoInB: true });
    // a second session of the same user, moved to account B
    const inB = await auth.signIn(m.email, password);
    const switched = await auth.call<{ token: string }>('PUT', '/users/connected_update', { token: inB.token, body: { customer: Number(accountB) } });
    expect(claimsOf(switched.body.token).acc).toBe(accountB);
    expect(await viaOther(switched.body.token)).toBe(200);
    expect((await auth.call('PUT', `/users/${m.id}`, { token: ownerToken, body: { status: 3 } })).status).toBe(200);
    await expectRefusedEverywhere(m.session.token);
    expect((await auth.call('POST', '/token_refresh', { body: { refresh_token: m.session.refresh_token } })).status).toBe(401);
    // tenant safety: the revocation names account A; the token of account B still opens both services
    expect(await viaOther(switched.body.token)).toBe(200);
    expect(await viaGateway(switched.body.token)).toBe(200);
  });

  it('a user removed from an account: their token of that account is refused everywhere', async () => {
    const m = await member();
    expect(await viaOther(m.session.token)).toBe(200);
    expect((await auth.call('DELETE', `/users/${m.id}`, { token: ownerToken })).status).toBe(204);
    await expectRefusedEverywhere(m.session.token);
  });

  it('a role changed: the token with the old permissions is refused; a refresh carries the new ones and works', async () => {
    const m = await member();
    expect((await auth.call('POST', '/users/roles', { token: ownerToken, body: { userId: Number(m.id), user_roles_ids: [Number(editorRole)] } })).status).toBe(200);
    await expectRefusedEverywhere(m.session.token);
    const fresh = await auth.call<{ token: string }>('POST', '/token_refresh', { body: { refresh_token: m.session.refresh_token } });
    expect(fresh.status).toBe(200);
    expect(claimsOf(fresh.body.token).perms).toEqual(expect.arrayContaining(['STREAM_VIEW', 'CAMPAIGN_VIEW']));
    expect(await viaOther(fresh.body.token)).toBe(200);
    expect(await viaGateway(fresh.body.token)).toBe(200);
  });

  it("a role's permissions edited or the role deleted: its holders' tokens are refused, other members' are not", async () => {
    const role = (await auth.seed.createRole({ accountId: account, name: 'Edited', permissions: ['STREAM_VIEW', 'CAMPAIGN_VIEW'] })).id;
    const holder = await member();
    expect((await auth.call('POST', '/users/roles', { token: ownerToken, body: { userId: Number(holder.id), user_roles_ids: [Number(role)] } })).status).toBe(200);
    const afterAssign = await auth.call<{ token: string; refresh_token: string }>('POST', '/token_refresh', { body: { refresh_token: holder.session.refresh_token } });
    expect(await viaOther(afterAssign.body.token)).toBe(200);
    const other2 = await member();
    expect((await auth.call('PUT', `/user_roles/${role}`, { token: ownerToken, body: { permissions: ['STREAM_VIEW'] } })).status).toBe(200);
    await expectRefusedEverywhere(afterAssign.body.token);
    expect(await viaOther(other2.session.token)).toBe(200);
    const fresh = await auth.call<{ token: string; refresh_token: string }>('POST', '/token_refresh', { body: { refresh_token: afterAssign.body.refresh_token } });
    expect(claimsOf(fresh.body.token).perms).not.toContain('CAMPAIGN_VIEW');
    expect(await viaOther(fresh.body.token)).toBe(200);
    expect((await auth.call('DELETE', `/user_roles/${role}`, { token: ownerToken })).status).toBe(204);
    await expectRefusedEverywhere(fresh.body.token);
  });

  it('an API key deleted: the access token it was exchanged for is refused everywhere', async () => {
    const key = await auth.call<{ id: number; apiKey: string }>('POST', '/api_keys', { token: ownerToken, body: { name: 'Revoked', permissions: ['STREAM_VIEW'] } });
    expect(key.status).toBe(201);
    const exchanged = await auth.call<{ token: string }>('POST', '/api_keys/token', { headers: { 'x-api-key': key.body.apiKey } });
    expect(exchanged.status).toBe(200);
    expect(await viaOther(exchanged.body.token)).toBe(200);
    expect((await auth.call('DELETE', `/api_keys/${key.body.id}`, { token: ownerToken })).status).toBe(204);
    await refused(() => viaOther(exchanged.body.token), 'the other service');
  });

  it("an API key deactivated, regenerated or narrowed: the tokens exchanged before are refused, the key's new ones work", async () => {
    const key = await auth.call<{ id: number; apiKey: string }>('POST', '/api_keys', { token: ownerToken, body: { name: 'Changing', permissions: ['STREAM_VIEW', 'CAMPAIGN_VIEW'] } });
    const exchange = async (secret: string) => (await auth.call<{ token: string }>('POST', '/api_keys/token', { headers: { 'x-api-key': secret } })).body.token;
    const first = await exchange(key.body.apiKey);
    expect(await viaOther(first)).toBe(200);
    expect((await auth.call('PUT', `/api_keys/${key.body.id}`, { token: ownerToken, body: { permissions: ['STREAM_VIEW'] } })).status).toBe(200);
    await refused(() => viaOther(first), 'the other service (permissions changed)');
    const second = await exchange(key.body.apiKey);
    expect(claimsOf(second).perms).toEqual(['STREAM_VIEW']);
    expect(await viaOther(second)).toBe(200);
    const regenerated = await auth.call<{ apiKey: string }>('POST', `/api_keys/${key.body.id}/regenerate`, { token: ownerToken });
    expect(regenerated.status).toBe(200);
    await refused(() => viaOther(second), 'the other service (regenerated)');
    const third = await exchange(regenerated.body.apiKey);
    expect(await viaOther(third)).toBe(200);
    // a change that narrows nothing (the name) revokes nothing
    expect((await auth.call('PUT', `/api_keys/${key.body.id}`, { token: ownerToken, body: { name: 'Renamed' } })).status).toBe(200);
    await auth.events();
    expect(await viaOther(third)).toBe(200);
    expect((await auth.call('PUT', `/api_keys/${key.body.id}`, { token: ownerToken, body: { active: 0 } })).status).toBe(200);
    await refused(() => viaOther(third), 'the other service (deactivated)');
  });

  it('a restarted process forgets no revocation: its deny list is reloaded from what auth committed', async () => {
    const loggedOut = await member();
    const demoted = await member();
    expect((await auth.call('POST', '/logout', { token: loggedOut.session.token })).status).toBe(204);
    expect((await auth.call('POST', '/users/roles', { token: ownerToken, body: { userId: Number(demoted.id), user_roles_ids: [Number(editorRole)] } })).status).toBe(200);
    const bystander = await member();
    // a fresh, empty list as a restarted process has, loaded the way auth's module loads it on boot
    const restarted = new RevocationList();
    expect(await auth.t.app.get(RevocationSnapshotLoader).load(restarted)).toBeGreaterThanOrEqual(2);
    const verify = (token: string) => new TokenVerifier(auth.t.keys.publicKey).verifyAccess(token);
    expect(restarted.reason(verify(loggedOut.session.token))).not.toBeNull();
    expect(restarted.reason(verify(demoted.session.token))).not.toBeNull();
    expect(restarted.reason(verify(bystander.session.token))).toBeNull();
  });

  it('signing out closes the open event stream of that session at the gateway, and a reconnect is refused', async () => {
    const m = await member();
    const rt = await auth.call<{ token: string }>('GET', '/users/async', { token: m.session.token });
    expect(rt.status).toBe(200);
    expect(claimsOf(rt.body.token).sid).toBe(claimsOf(m.session.token).sid);
    const url = `${gateway.url}/realtime?topic=streams&access_token=${rt.body.token}`;
    const sse = await openSse(url);
    try {
      expect(sse.status).toBe(200);
      await sse.waitFor((f) => f.some((x) => x.comments.includes('connected')), 'the connected comment');
      expect((await fetch(`${gateway.url}/api/logout`, { method: 'POST', headers: { authorization: `Bearer ${m.session.token}` } })).status).toBe(204);
      const frames = await sse.waitFor((f) => f.some((x) => x.event === 'revoked'), 'the revoked notice');
      expect(frames.find((x) => x.event === 'revoked')?.data).toMatchObject({ code: '0x14', status: 401 });
      const end = Date.now() + 5000;
      while (!sse.ended && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      expect(sse.ended).toBe(true);
      const again = await openSse(url);
      expect(again.status).toBe(401);
    } finally {
      sse.close();
    }
  });

  it("a user disabled in an account loses the event stream of that account, and nobody else's stream closes", async () => {
    const m = await member();
    const bystander = await member();
    const open = async (token: string) => {
      const rt = await auth.call<{ token: string }>('GET', '/users/async', { token });
      const c = await openSse(`${gateway.url}/realtime?topic=streams&access_token=${rt.body.token}`);
      await c.waitFor((f) => f.some((x) => x.comments.includes('connected')), 'the connected comment');
      return c;
    };
    const sse = await open(m.session.token);
    const other2 = await open(bystander.session.token);
    try {
      expect((await auth.call('PUT', `/users/${m.id}`, { token: ownerToken, body: { status: 3 } })).status).toBe(200);
      await sse.waitFor((f) => f.some((x) => x.event === 'revoked'), 'the revoked notice');
      expect(other2.ended).toBe(false);
      expect(other2.frames.some((x) => x.event === 'revoked')).toBe(false);
    } finally {
      sse.close();
      other2.close();
    }
  });
});
