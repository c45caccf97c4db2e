import { Logger } from '@nestjs/common';
import { MemberChangedV1, Permission } from '@switchboard/contracts';
import { INBOX_AGENT_ROLE, INBOX_MANAGER_ROLE } from '../src';
import { claimsOf, startAuth, type AuthTestApp } from './support';

interface Invite {
  id: number;
  /** error bodies */
  message?: string;
  status: number;
  email: string;
  firstname: string;
  lastname: string;
  user_roles_ids: number[];
  expired: boolean;
}

const LINK = /\/team-member-invite\/(\d+)\/(\d+)\/([A-Za-z0-9_-]+)/;

describe('invites: email, check, register, accept, expiry and single use', () => {
  let a: AuthTestApp;
  let account: string;
  let adminToken: string;
  let viewerRole: string;
  let agentRole: string;
  let managerRole: string;
  const password = 'correct horse battery';
  const all = Object.values(Permission);

  beforeAll(async () => {
    a = await startAuth({ appUrl: 'https://console.example.com/' });
    await a.seed.ensureSystemRoles();
    const admin = await a.seed.createUser({ email: 'admin@acme.test', password, firstName: 'Ada', lastName: 'Admin' });
    const acc = await a.seed.createAccount({ name: 'Acme' });
    await a.seed.addMember({ userId: admin.id, accountId: acc.id, status: 0 });
    account = acc.id;
    adminToken = a.tokenFor(admin.id, account, all);
    viewerRole = (await a.seed.createRole({ accountId: account, name: 'Viewer', permissions: ['STREAM_VIEW', 'CAMPAIGN_VIEW'] })).id;
    agentRole = (await a.seed.systemRole(INBOX_AGENT_ROLE)).id;
    managerRole = (await a.seed.systemRole(INBOX_MANAGER_ROLE)).id;
  });
  afterAll(async () => {
    await a?.close();
  });

  const invite = (body: Record<string, unknown>, token = adminToken) => a.call<Invite>('POST', '/user_invites', { token, body });
  const linkOf = (email: string) => {
    const m = LINK.exec(a.mailTo(email).text);
    if (!m) throw new Error(`no invite link in the mail to ${email}`);
    return { customerID: m[1], inviteID: m[2], inviteToken: m[3] };
  };

  it('takes a new user from the invite email through registration to signing in with the invited roles', async () => {
    const sent = await invite({ email: ' New.Person@Example.com ', firstname: 'New', lastname: 'Person', user_roles_ids: [Number(viewerRole), `/api/user_roles/${agentRole}`] });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ status: 1, email: 'new.person@example.com', firstname: 'New', lastname: 'Person', expired: false });
    expect(sent.body.user_roles_ids.sort()).toEqual([Number(viewerRole), Number(agentRole)].sort());

    const mail = a.mailTo('new.person@example.com');
    expect(mail.text).toContain(`https://console.example.com/team-member-invite/${account}/${sent.body.id}/`);
    expect(mail.text).toContain('Ada Admin');
    const link = linkOf('new.person@example.com');
    // only a hash of the token is stored
    const [row] = await a.sql<{ token_hash: string }>(`SELECT token_hash FROM auth.invite WHERE id = $1`, [sent.body.id]);
    expect(row.token_hash).not.toContain(link.inviteToken);
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);

    const check = await a.call('POST', '/user_invites/check', { body: link });
    expect(check.status).toBe(200);
    expect(check.body).toEqual({ status: 1, action: 1, email: 'new.person@example.com', firstname: 'New', lastname: 'Person', customer: { id: Number(account), name: 'Acme' } });

    const weak = await a.call('POST', '/user_invites/register', { body: { ...link, password: 'short' } });
    expect(weak.status).toBe(400);
    const mismatch = await a.call('POST', '/user_invites/register', { body: { ...link, password, confirmPassword: 'something else' } });
    expect(mismatch.status).toBe(400);
    expect(await a.sql(`SELECT id FROM auth.app_user WHERE email = 'new.person@example.com'`)).toEqual([]);

    const reg = await a.call('POST', '/user_invites/register', { body: { ...link, password, confirmPassword: password } });
    expect(reg.status).toBe(200);
    expect(reg.body).toEqual({ status: 1, userType: 'newly-registered', customer: { id: Number(account), name: 'Acme' } });

    const session = await a.signIn('new.person@example.com', password);
    expect(claimsOf(session.token)).toMatchObject({ acc: account, perms: expect.arrayContaining(['STREAM_VIEW', 'CAMPAIGN_VIEW', 'INBOX_VIEW']) });
    expect(claimsOf(session.token).perms).not.toContain('USER_INVITE_VIEW');

    const members = await a.call<{ items: Array<{ email: string; status: number; firstName: string }> }>('GET', '/users', { token: adminToken });
    expect(members.body.items).toContainEqual(expect.objectContaining({ email: 'new.person@example.com', status: 2, firstName: 'New' }));
    const listed = await a.call<{ items: Invite[] }>('GET', '/user_invites', { token: adminToken });
    expect(listed.body.items.find((i) => i.id === sent.body.id)?.status).toBe(2);

    const events = await a.events();
    expect(events).toContainEqual(
      expect.objectContaining({ type: MemberChangedV1.type, accountId: account, data: expect.objectContaining({ email: 'new.person@example.com', status: 2, removed: false }) }),
    );
  });

  it('works once: the same link is refused after use, for registering and for checking', async () => {
    await invite({ email: 'once@example.com', user_roles_ids: [viewerRole] });
    const link = linkOf('once@example.com');
    expect((await a.call('POST', '/user_invites/register', { body: { ...link, password } })).status).toBe(200);
    const again = await a.call('POST', '/user_invites/register', { body: { ...link, password } });
    expect(again.status).toBe(410);
    expect(again.body).toMatchObject({ code: 'INVITE_USED' });
    expect((await a.call('POST', '/user_invites/check', { body: link })).body.status).toBe(410);
  });

  it('expires after 7 days', async () => {
    await invite({ email: 'late@example.com', user_roles_ids: [viewerRole] });
    const link = linkOf('late@example.com');
    a.clock.advance(7 * 24 * 3600 * 1000 + 1000);
    try {
      const check = await a.call('POST', '/user_invites/check', { body: link });
      expect(check.status).toBe(410);
      expect(check.body.code).toBe('INVITE_EXPIRED');
      expect((await a.call('POST', '/user_invites/register', { body: { ...link, password } })).status).toBe(410);
      const listed = await a.call<{ items: Invite[] }>('GET', '/user_invites?status=1', { token: adminToken });
      expect(listed.body.items.find((i) => i.email === 'late@example.com')?.expired).toBe(true);
    } finally {
      a.clock.advance(-(7 * 24 * 3600 * 1000 + 1000));
    }
  });

  it('answers 404 alike for a wrong token, a wrong invite and a wrong account', async () => {
    const sent = await invite({ email: 'probe@example.com', user_roles_ids: [viewerRole] });
    const link = linkOf('probe@example.com');
    const answers = await Promise.all([
      a.call('POST', '/user_invites/check', { body: { ...link, inviteToken: 'x'.repeat(43) } }),
      a.call('POST', '/user_invites/check', { body: { ...link, inviteID: String(sent.body.id + 1000) } }),
      a.call('POST', '/user_invites/check', { body: { ...link, customerID: '999999' } }),
    ]);
    expect(answers.map((r) => r.status)).toEqual([404, 404, 404]);
    expect(new Set(answers.map((r) => r.body.message)).size).toBe(1);
    expect((await a.call('POST', '/user_invites/check', { body: { ...link, inviteID: 'abc' } })).status).toBe(400);
  });

  it('lets a registered user accept while signed in as the invited address, and nobody else', async () => {
    const existing = await a.seed.createUser({ email: 'known@example.com', password });
    const other = await a.seed.createAccount({ name: 'Elsewhere' });
    await a.seed.addMember({ userId: existing.id, accountId: other.id, status: 0 });
    await invite({ email: 'known@example.com', user_roles_ids: [managerRole] });
    const link = linkOf('known@example.com');
    expect((await a.call('POST', '/user_invites/check', { body: link })).body).toMatchObject({ status: 1, action: 2 });
    // registering an existing address is refused: sign in and accept
    expect((await a.call('POST', '/user_invites/register', { body: { ...link, password } })).status).toBe(409);
    // not signed in
    expect((await a.call('POST', '/user_invites/accept', { body: link })).status).toBe(401);
    // signed in as someone else
    const intruder = await a.seed.createUser({ email: 'intruder@example.com', password });
    expect((await a.call('POST', '/user_invites/accept', { body: link, token: a.tokenFor(intruder.id, null) })).status).toBe(403);
    // while logged in as the invitee, an admin cannot accept for them
    expect((await a.call('POST', '/user_invites/accept', { body: link, token: a.tokenFor(existing.id, null, [], { imp: intruder.id }) })).status).toBe(403);

    const session = await a.signIn('known@example.com', password);
    const accepted = await a.call('POST', '/user_invites/accept', { body: link, token: session.token });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ status: 1, userType: 'registered', customer: { id: Number(account), name: 'Acme' } });
    const profile = await a.call<{ customers: Array<{ name: string }> }>('GET', '/users/connected', { token: session.token });
    expect(profile.body.customers.map((c) => c.name)).toEqual(['Acme', 'Elsewhere']);
    expect((await a.call('POST', '/user_invites/accept', { body: link, token: session.token })).status).toBe(410);
  });

  it('replaces a pending invite to the same address; resend changes the link; delete withdraws it', async () => {
    const first = await invite({ email: 'twice@example.com', user_roles_ids: [viewerRole] });
    const firstLink = linkOf('twice@example.com');
    const second = await invite({ email: 'twice@example.com', user_roles_ids: [agentRole] });
    expect(second.body.id).not.toBe(first.body.id);
    expect((await a.call('POST', '/user_invites/check', { body: firstLink })).status).toBe(404);
    const secondLink = linkOf('twice@example.com');
    const resent = await a.call('POST', `/user_invites/${second.body.id}/resend`, { token: adminToken });
    expect(resent.status).toBe(200);
    expect((await a.call('POST', '/user_invites/check', { body: secondLink })).status).toBe(404);
    const thirdLink = linkOf('twice@example.com');
    expect((await a.call('POST', '/user_invites/check', { body: thirdLink })).status).toBe(200);
    const edited = await a.call<Invite>('PUT', `/user_invites/${second.body.id}`, { token: adminToken, body: { firstname: 'Twice', user_roles_ids: [viewerRole, agentRole] } });
    expect(edited.body).toMatchObject({ firstname: 'Twice', user_roles_ids: expect.arrayContaining([Number(viewerRole), Number(agentRole)]) });
    expect((await a.call('DELETE', `/user_invites/${second.body.id}`, { token: adminToken })).status).toBe(204);
    expect((await a.call('POST', '/user_invites/check', { body: thirdLink })).status).toBe(404);
  });

  it('carries at most one platform role and one inbox role, and at least one role', async () => {
    const other = (await a.seed.createRole({ accountId: account, name: 'Other platform', permissions: ['DOMAIN_VIEW'] })).id;
    const two = await invite({ email: 'two@example.com', user_roles_ids: [viewerRole, other] });
    expect(two.status).toBe(400);
    expect((await invite({ email: 'two@example.com', user_roles_ids: [agentRole, managerRole] })).status).toBe(400);
    expect((await invite({ email: 'two@example.com', user_roles_ids: [] })).status).toBe(400);
    expect((await invite({ email: 'not an email', user_roles_ids: [viewerRole] })).status).toBe(400);
    expect((await invite({ email: 'two@example.com', user_roles_ids: [999999] })).status).toBe(404);
    expect(await a.sql(`SELECT id FROM auth.invite WHERE email = 'two@example.com'`)).toEqual([]);
  });

  it('refuses an invite that would hand out permissions the inviter does not hold, and re-inviting a member', async () => {
    const limited = a.tokenFor((await a.sql<{ id: string }>(`SELECT id::text FROM auth.app_user WHERE email = 'admin@acme.test'`))[0].id, account, [Permission.UserInviteAdd, Permission.StreamView]);
    const res = await invite({ email: 'escalate@example.com', user_roles_ids: [viewerRole] }, limited);
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/CAMPAIGN_VIEW/);
    expect(a.t.mailbox.list().some((m) => m.to === 'escalate@example.com')).toBe(false);
    expect((await invite({ email: 'admin@acme.test', user_roles_ids: [viewerRole] })).status).toBe(409);
  });

  it('withdraws the invite when its email cannot be sent', async () => {
    const send = jest.spyOn(a.t.mailbox, 'send').mockRejectedValueOnce(new Error('smtp down'));
    const quiet = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const res = await invite({ email: 'nomail@example.com', user_roles_ids: [viewerRole] });
      expect(res.status).toBe(503);
      expect(await a.sql(`SELECT id FROM auth.invite WHERE email = 'nomail@example.com'`)).toEqual([]);
    } finally {
      send.mockRestore();
      quiet.mockRestore();
    }
  });
});
