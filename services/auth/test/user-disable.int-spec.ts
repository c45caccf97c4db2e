import { Controller, Get, Module } from '@nestjs/common';
import { ErrorCode, Permission, Topics } from '@switchboard/contracts';
import { Authenticated, CurrentPrincipal, type Principal } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { startAuth, type AuthTestApp } from './support';

/** Another service: any route behind the platform's guard. */
@Controller('probe')
class ProbeController {
  @Get() @Authenticated()
  who(@CurrentPrincipal() p: Principal): { sub: string | null } {
    return { sub: p.userId };
  }
}
@Module({ controllers: [ProbeController] })
class ProbeModule {}

/**
 * `PUT /users/{id}/disable` and `/enable` (super admin): a user disabled everywhere (docs/decisions/0029). Another
 * service fed by auth's events refuses the user's tokens, sign-in and refresh refuse them, enabling restores sign-in.
 */
describe('a user disabled globally by a super admin', () => {
  let auth: AuthTestApp;
  let other: TestApp;
  let account: string;
  let accountB: string;
  let adminToken: string;
  let ownerToken: string;
  const password = 'correct horse battery';
  let seq = 0;

  beforeAll(async () => {
    auth = await startAuth();
    await auth.seed.ensureSystemRoles();
    account = (await auth.seed.createAccount({ name: 'Disable Co' })).id;
    accountB = (await auth.seed.createAccount({ name: 'Other Disable Co' })).id;
    const admin = await auth.seed.createUser({ email: 'root@disable.test', password, superAdmin: true });
    adminToken = auth.tokenFor(admin.id, account, Object.values(Permission), { sa: true });
    const owner = await auth.seed.createUser({ email: 'owner@disable.test', password });
    await auth.seed.addMember({ userId: owner.id, accountId: account, status: 0 });
    ownerToken = auth.tokenFor(owner.id, account, Object.values(Permission));
    other = await createTestApp(() => ({ imports: [ProbeModule], keys: auth.t.keys }));
    // auth's events reach the other service's bus, as every consumer group of a Kafka topic sees every event
    await auth.t.bus.subscribe({ group: 'bridge-to-other', topics: [Topics.Auth], handler: async (e) => other.bus.publish([{ ...e, topic: Topics.Auth }]) });
  });
  afterAll(async () => {
    await other?.close();
    await auth?.close();
  });

  /** A member of both accounts with a real session from the PIN sign-in. */
  async function member(): Promise<{ id: string; email: string; session: { token: string; refresh_token: string } }> {
    const email = `d${++seq}@disable.test`;
    const u = await auth.seed.createUser({ email, password });
    await auth.seed.addMember({ userId: u.id, accountId: account, status: 0 });
    await auth.seed.addMember({ userId: u.id, accountId: accountB, status: 0 });
    return { id: u.id, email, session: await auth.signIn(email, password) };
  }

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

  it('is for super admins only: 403 for an account owner, 404 for an unknown user, and nothing changes', async () => {
    const m = await member();
    const asOwner = await auth.call<{ code: string }>('PUT', `/users/${m.id}/disable`, { token: ownerToken });
    expect(asOwner.status).toBe(403);
    expect((await auth.call('PUT', `/users/${m.id}/enable`, { token: ownerToken })).status).toBe(403);
    expect(await auth.sql(`SELECT active FROM auth.app_user WHERE id = $1`, [m.id])).toEqual([{ active: true }]);
    expect(await viaOther(m.session.token)).toBe(200);
    const unknown = await auth.call<{ code: string }>('PUT', `/users/999999/disable`, { token: adminToken });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
  });

  it("refuses the user's access tokens in every account at another service, their refresh and sign-in; enabling restores sign-in", async () => {
    const m = await member();
    // a second session of the same user, in the other account
    const second = await auth.signIn(m.email, password);
    const inB = await auth.call<{ token: string }>('PUT', '/users/connected_update', { token: second.token, body: { customer: Number(accountB) } });
    expect(inB.status).toBe(200);
    expect(await viaOther(m.session.token)).toBe(200);
    expect(await viaOther(inB.body.token)).toBe(200);

    const res = await auth.call('PUT', `/users/${m.id}/disable`, { token: adminToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: Number(m.id), active: false });
    await refused(() => viaOther(m.session.token), 'the first session at the other service');
    await refused(() => viaOther(inB.body.token), 'the session in the other account');
    await refused(async () => (await auth.call('GET', '/users/connected', { token: m.session.token })).status, 'auth itself');
    const body = (await (await fetch(`${other.url}/api/probe`, { headers: { authorization: `Bearer ${m.session.token}` } })).json()) as { code: string };
    expect(body.code).toBe('0x14');
    expect((await auth.call('POST', '/token_refresh', { body: { refresh_token: m.session.refresh_token } })).status).toBe(401);
    const check = await auth.call<{ code: string }>('POST', '/login_check', { body: { username: m.email, password, gCaptchaToken: 'dev-placeholder' } });
    expect(check.status).toBe(401);
    expect(check.body.code).toBe(ErrorCode.LoginFailed);
    const audit = await auth.sql<{ action: string; target_id: string }>(`SELECT action, target_id FROM auth.audit_log WHERE target_id = $1 ORDER BY id`, [m.id]);
    expect(audit).toEqual([{ action: 'user_disabled', target_id: m.id }]);

    expect((await auth.call('PUT', `/users/${m.id}/enable`, { token: adminToken })).body).toEqual({ id: Number(m.id), active: true });
    const again = await auth.signIn(m.email, password);
    expect(await viaOther(again.token)).toBe(200);
    // the old session stays ended: enabling does not bring revoked tokens back
    expect(await viaOther(m.session.token)).toBe(401);
    expect((await auth.sql<{ action: string }>(`SELECT action FROM auth.audit_log WHERE target_id = $1 ORDER BY id`, [m.id])).map((r) => r.action)).toEqual(['user_disabled', 'user_enabled']);
  });

  it('refuses a super admin disabling themselves', async () => {
    const admin = await auth.seed.createUser({ email: 'self@disable.test', password, superAdmin: true });
    const token = auth.tokenFor(admin.id, account, [], { sa: true });
    expect((await auth.call('PUT', `/users/${admin.id}/disable`, { token })).status).toBe(403);
  });
});
