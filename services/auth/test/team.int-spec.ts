import { Permission, SessionRevokedV1 } from '@switchboard/contracts';
import { INBOX_AGENT_ROLE, INBOX_MANAGER_ROLE } from '../src';
import { claimsOf, startAuth, type AuthTestApp } from './support';

interface Member {
  id: number;
  email: string;
  status: number;
  platformRole: { id: number; name: string } | null;
  inboxRole: { id: number; name: string } | null;
  user_roles_ids: number[];
  userPermissions: string[];
}

describe('team members: list, roles, status, removal, and no escalation', () => {
  let a: AuthTestApp;
  let account: string;
  let ownerId: string;
  let adminId: string;
  let adminToken: string;
  let ownerToken: string;
  let adminRole: string;
  let viewerRole: string;
  let agentRole: string;
  const password = 'correct horse battery';
  const all = Object.values(Permission);

  beforeAll(async () => {
    a = await startAuth();
    await a.seed.ensureSystemRoles();
    const acc = await a.seed.createAccount({ name: 'Team Co' });
    account = acc.id;
    const owner = await a.seed.createUser({ email: 'owner@team.test', password });
    await a.seed.addMember({ userId: owner.id, accountId: account, status: 0 });
    ownerId = owner.id;
    ownerToken = a.tokenFor(ownerId, account, all);
    // an admin: manages the team, holds no campaign removal
    const adminPerms = all.filter((p) => p !== Permission.CampaignRemove && p !== Permission.TenantOwner && !p.startsWith('INBOX_'));
    adminRole = (await a.seed.createRole({ accountId: account, name: 'Team admin', permissions: adminPerms })).id;
    viewerRole = (await a.seed.createRole({ accountId: account, name: 'Viewer', permissions: ['STREAM_VIEW'] })).id;
    agentRole = (await a.seed.systemRole(INBOX_AGENT_ROLE)).id;
    const admin = await a.seed.createUser({ email: 'admin@team.test', password, firstName: 'Adam' });
    await a.seed.addMember({ userId: admin.id, accountId: account, platformRoleId: adminRole, status: 2 });
    adminId = admin.id;
    adminToken = a.tokenFor(adminId, account, adminPerms);
  });
  afterAll(async () => {
    await a?.close();
  });

  const newMember = async (email: string, platformRoleId: string | null = viewerRole, status: 0 | 2 | 3 = 2) => {
    const u = await a.seed.createUser({ email, password });
    await a.seed.addMember({ userId: u.id, accountId: account, platformRoleId, status });
    return u.id;
  };

  it('lists the members with their status and roles, filterable and searchable', async () => {
    const agent = await newMember('agent@team.test', null);
    await a.call('POST', '/users/roles', { token: ownerToken, body: { userId: agent, user_roles_ids: [agentRole] } });
    const res = await a.call<{ items: Member[]; total: number }>('GET', '/users?order[email]=asc', { token: adminToken });
    expect(res.status).toBe(200);
    expect(res.body.items.map((m) => [m.email, m.status])).toEqual([
      ['admin@team.test', 2],
      ['agent@team.test', 2],
      ['owner@team.test', 0],
    ]);
    const agentRow = res.body.items[1];
    expect(agentRow).toMatchObject({ platformRole: null, inboxRole: { id: Number(agentRole), name: 'Inbox Agent' }, user_roles_ids: [Number(agentRole)] });
    expect(agentRow.userPermissions).toContain('INBOX_VIEW');
    expect((await a.call<{ total: number }>('GET', '/users?status=0', { token: adminToken })).body.total).toBe(1);
    expect((await a.call<{ items: Member[] }>('GET', '/users?q=AGENT', { token: adminToken })).body.items.map((m) => m.email)).toEqual(['agent@team.test']);
    expect((await a.call('GET', '/users?status=7', { token: adminToken })).status).toBe(400);
    expect((await a.call('GET', '/users?order[password]=asc', { token: adminToken })).status).toBe(400);
  });

  it('refuses a member changing their own role, status or membership', async () => {
    const self = await a.call('POST', '/users/roles', { token: adminToken, body: { userId: adminId, user_roles_ids: [viewerRole] } });
    expect(self.status).toBe(403);
    expect(self.body.message).toMatch(/your own role/);
    expect((await a.call('PUT', `/users/${adminId}`, { token: adminToken, body: { status: 3 } })).status).toBe(403);
    expect((await a.call('DELETE', `/users/${adminId}`, { token: adminToken })).status).toBe(403);
    expect((await a.call<Member>('GET', `/users/${adminId}`, { token: adminToken })).body.platformRole?.id).toBe(Number(adminRole));
  });

  it('refuses giving a role with a permission the admin does not hold, and managing someone who holds one', async () => {
    const m = await newMember('target@team.test');
    const strong = (await a.seed.createRole({ accountId: account, name: 'Remover', permissions: ['CAMPAIGN_REMOVE'] })).id;
    const give = await a.call('POST', '/users/roles', { token: adminToken, body: { userId: m, user_roles_ids: [strong] } });
    expect(give.status).toBe(403);
    expect(give.body.message).toMatch(/CAMPAIGN_REMOVE/);
    const strongMember = await newMember('strong@team.test', strong);
    expect((await a.call('PUT', `/users/${strongMember}`, { token: adminToken, body: { status: 3 } })).status).toBe(403);
    expect((await a.call('POST', '/users/roles', { token: adminToken, body: { userId: strongMember, user_roles_ids: [viewerRole] } })).status).toBe(403);
    // the owner is changed by a super admin only
    expect((await a.call('PUT', `/users/${ownerId}`, { token: adminToken, body: { status: 3 } })).status).toBe(403);
    expect((await a.call('POST', '/users/roles', { token: ownerToken, body: { userId: m, user_roles_ids: [strong] } })).status).toBe(200);
  });

  it('changes roles: one platform and one inbox role; none leaves status -1; roles come back as active', async () => {
    const m = await newMember('roles@team.test');
    const manager = (await a.seed.systemRole(INBOX_MANAGER_ROLE)).id;
    const set = await a.call<Member>('POST', '/users/roles', { token: ownerToken, body: { userId: `/api/users/${m}`, user_roles_ids: [viewerRole, `/api/user_roles/${manager}`] } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ status: 2, platformRole: { name: 'Viewer' }, inboxRole: { name: 'Inbox Manager' } });
    expect((await a.call('POST', '/users/roles', { token: ownerToken, body: { userId: m, user_roles_ids: [agentRole, manager] } })).status).toBe(400);
    const none = await a.call<Member>('POST', '/users/roles', { token: ownerToken, body: { userId: m, user_roles_ids: [] } });
    expect(none.body).toMatchObject({ status: -1, platformRole: null, inboxRole: null });
    const back = await a.call<Member>('POST', '/users/roles', { token: ownerToken, body: { userId: m, user_roles_ids: [viewerRole] } });
    expect(back.body.status).toBe(2);
    const [audit] = await a.sql(`SELECT actor_id::text, target_id::text, account_id::text FROM auth.audit_log WHERE action = 'member_roles_changed' ORDER BY id DESC LIMIT 1`);
    expect(audit).toEqual({ actor_id: ownerId, target_id: m, account_id: account });
  });

  it('disabling a member ends their sessions in the account and keeps them out; enabling lets them back', async () => {
    const m = await newMember('disabled@team.test');
    const session = await a.signIn('disabled@team.test', password);
    expect(claimsOf(session.token).acc).toBe(account);
    const off = await a.call<Member>('PUT', `/users/${m}`, { token: adminToken, body: { status: 3 } });
    expect(off.body.status).toBe(3);
    expect((await a.call('POST', '/token_refresh', { body: { refresh_token: session.refresh_token } })).status).toBe(401);
    const events = await a.events();
    expect(events).toContainEqual(expect.objectContaining({ type: SessionRevokedV1.type, data: expect.objectContaining({ userId: m, reason: 'admin', familyId: claimsOf(session.token).sid }) }));
    const again = await a.signIn('disabled@team.test', password);
    expect(claimsOf(again.token).acc).toBeNull();
    expect((await a.call('PUT', `/users/${m}`, { token: adminToken, body: { status: 0 } })).status).toBe(400);
    expect((await a.call<Member>('PUT', `/users/${m}`, { token: adminToken, body: { status: 2 } })).body.status).toBe(2);
    expect(claimsOf((await a.signIn('disabled@team.test', password)).token).acc).toBe(account);
  });

  it('removes a member from the account, ending their sessions there', async () => {
    const m = await newMember('leaving@team.test');
    const session = await a.signIn('leaving@team.test', password);
    expect((await a.call('DELETE', `/users/${m}`, { token: adminToken })).status).toBe(204);
    expect((await a.call('GET', `/users/${m}`, { token: adminToken })).status).toBe(404);
    expect((await a.call('POST', '/token_refresh', { body: { refresh_token: session.refresh_token } })).status).toBe(401);
    expect((await a.call('DELETE', `/users/${m}`, { token: adminToken })).status).toBe(404);
    expect((await a.call('GET', '/users/not-a-number', { token: adminToken })).status).toBe(404);
  });
});
