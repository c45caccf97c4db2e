import { Permission, RoleChangedV1 } from '@switchboard/contracts';
import { INBOX_AGENT_ROLE } from '../src';
import { startAuth, type AuthTestApp } from './support';

interface Role {
  id: number;
  name: string;
  description: string;
  permissions: string[];
  roleType: 1 | 2;
  readOnly: boolean;
  isDeleted: boolean;
  customer: number | null;
}

describe('roles: system roles, custom roles, naming, inbox matrix', () => {
  let a: AuthTestApp;
  let owner: string;
  let account: string;
  let ownerToken: string;
  const all = Object.values(Permission);

  beforeAll(async () => {
    a = await startAuth();
    await a.seed.ensureSystemRoles();
    const user = await a.seed.createUser({ email: 'owner@example.com', password: 'correct horse battery' });
    const acc = await a.seed.createAccount({ name: 'Roles Inc' });
    await a.seed.addMember({ userId: user.id, accountId: acc.id, status: 0 });
    owner = user.id;
    account = acc.id;
    ownerToken = a.tokenFor(owner, account, all);
  });
  afterAll(async () => {
    await a?.close();
  });

  const call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown, token = ownerToken) => a.call<T>(method, path, { token, body });

  it('lists the read-only roles first, in the spec order, then the custom roles', async () => {
    await a.seed.createRole({ accountId: account, name: 'Alpha', permissions: ['STREAM_VIEW'] });
    const res = await call<{ items: Role[]; total: number }>('GET', '/user_roles');
    expect(res.status).toBe(200);
    expect(res.body.items.map((r) => [r.name, r.readOnly, r.roleType])).toEqual([
      ['Tenant owner', true, 1],
      ['Inbox Admin', true, 2],
      ['Inbox Manager', true, 2],
      ['Inbox Agent', true, 2],
      ['Alpha', false, 1],
    ]);
    expect(res.body.total).toBe(5);
    const inbox = await call<{ items: Role[] }>('GET', '/user_roles/inbox');
    expect(inbox.body.items.map((r) => r.name)).toEqual(['Inbox Admin', 'Inbox Manager', 'Inbox Agent']);
    const platformOnly = await call<{ items: Role[] }>('GET', '/user_roles?roleType=1');
    expect(platformOnly.body.items.map((r) => r.name)).toEqual(['Tenant owner', 'Alpha']);
    expect((await call('GET', '/user_roles?roleType=3')).status).toBe(400);
  });

  it('answers the permission groups of spec 6 for the role editor', async () => {
    const res = await a.call<Array<{ key: string; roleType: string; permissions: string[] }>>('GET', '/user_roles/permissions', { token: ownerToken });
    expect(res.status).toBe(200);
    expect(res.body.map((g) => g.key)).toContain('inbox');
    expect(res.body.flatMap((g) => g.permissions)).toEqual(expect.arrayContaining(['STREAM_VIEW', 'TENANT_OWNER', 'INBOX_VIEW']));
  });

  it('creates a draft with the spec defaults and makes its name unique with " - N"', async () => {
    const first = await call<Role>('POST', '/user_roles', {});
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ name: 'Custom role name', description: 'Role description', roleType: 1, permissions: [], readOnly: false, customer: Number(account) });
    const second = await call<Role>('POST', '/user_roles', {});
    const third = await call<Role>('POST', '/user_roles', { name: 'custom role name' });
    expect([second.body.name, third.body.name]).toEqual(['Custom role name - 1', 'custom role name - 2']);
    // a system role's name is taken too
    expect((await call<Role>('POST', '/user_roles', { name: 'Inbox Agent', roleType: 2 })).body.name).toBe('Inbox Agent - 1');
  });

  it('copies a role as "Copy of X" with its type and permissions', async () => {
    const agent = await a.seed.systemRole(INBOX_AGENT_ROLE);
    const copy = await call<Role>('POST', '/user_roles', { copyOf: `/api/user_roles/${agent.id}` });
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ name: 'Copy of Inbox Agent', roleType: 2, readOnly: false, permissions: agent.permissions });
    expect((await call<Role>('POST', '/user_roles', { copyOf: Number(agent.id) })).body.name).toBe('Copy of Inbox Agent - 1');
  });

  it('refuses permissions of the other role type and unknown permissions, one violation each, creating nothing', async () => {
    const before = await a.sql(`SELECT count(*)::int AS n FROM auth.role`);
    const res = await call('POST', '/user_roles', { name: 'Mixed', roleType: 1, permissions: ['STREAM_VIEW', 'INBOX_VIEW', 'NOPE'] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('0x1');
    expect((res.body.violations as Array<{ propertyPath: string }>).map((v) => v.propertyPath)).toEqual(['permissions[1]', 'permissions[2]']);
    expect(await a.sql(`SELECT count(*)::int AS n FROM auth.role`)).toEqual(before);
    expect((await call('POST', '/user_roles', { name: 'Bad <b>' })).status).toBe(400);
  });

  it('refuses to edit or delete a read-only role', async () => {
    const agent = await a.seed.systemRole(INBOX_AGENT_ROLE);
    expect((await call('PUT', `/user_roles/${agent.id}`, { permissions: ['INBOX_VIEW'] })).status).toBe(403);
    expect((await call('DELETE', `/user_roles/${agent.id}`)).status).toBe(403);
    expect((await a.seed.systemRole(INBOX_AGENT_ROLE)).permissions).toEqual(agent.permissions);
  });

  it('edits a custom role; a clashing new name is 409; the type cannot change', async () => {
    const r = await call<Role>('POST', '/user_roles', { name: 'Editors', permissions: ['TEMPLATE_VIEW'] });
    const edited = await call<Role>('PUT', `/user_roles/${r.body.id}`, { name: 'Writers', description: 'They write', permissions: ['TEMPLATE_VIEW', 'TEMPLATE_ADD_EDIT'] });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: 'Writers', description: 'They write', permissions: ['TEMPLATE_VIEW', 'TEMPLATE_ADD_EDIT'] });
    expect((await call('PUT', `/user_roles/${r.body.id}`, { name: 'alpha' })).status).toBe(409);
    expect((await call('PUT', `/user_roles/${r.body.id}`, { roleType: 2 })).status).toBe(400);
    expect((await call('PUT', `/user_roles/${r.body.id}`, { roleType: 1, name: 'Writers' })).status).toBe(200);
    const events = await a.events();
    expect(events).toContainEqual(expect.objectContaining({ type: RoleChangedV1.type, data: expect.objectContaining({ roleId: String(r.body.id), name: 'Writers' }) }));
  });

  it('refuses to put into a role, or touch a role holding, a permission the caller does not hold', async () => {
    const limited = a.tokenFor(owner, account, [Permission.UserRoleAdd, Permission.UserRoleEdit, Permission.UserRoleDelete, Permission.StreamView]);
    const widen = await call('POST', '/user_roles', { name: 'Sneaky', permissions: ['STREAM_VIEW', 'CAMPAIGN_REMOVE'] }, limited);
    expect(widen.status).toBe(403);
    expect(widen.body.message).toMatch(/CAMPAIGN_REMOVE/);
    expect((await call('POST', '/user_roles', { name: 'Fine', permissions: ['STREAM_VIEW'] }, limited)).status).toBe(201);
    const strong = await call<Role>('POST', '/user_roles', { name: 'Strong', permissions: ['CAMPAIGN_REMOVE'] });
    expect((await call('PUT', `/user_roles/${strong.body.id}`, { permissions: ['STREAM_VIEW'] }, limited)).status).toBe(403);
    expect((await call('DELETE', `/user_roles/${strong.body.id}`, undefined, limited)).status).toBe(403);
    expect((await call('POST', '/user_roles', { copyOf: strong.body.id }, limited)).status).toBe(403);
  });

  it('updates the inbox matrix all or nothing', async () => {
    const r1 = await call<Role>('POST', '/user_roles', { name: 'Night shift', roleType: 2, permissions: ['INBOX_VIEW'] });
    const r2 = await call<Role>('POST', '/user_roles', { name: 'Day shift', roleType: 'inbox', permissions: ['INBOX_VIEW'] });
    const platform = await call<Role>('POST', '/user_roles', { name: 'Platformers' });
    const ok = await call<{ items: Role[] }>('POST', '/user_roles/inbox/update', {
      roles: [
        { id: r1.body.id, permissions: ['INBOX_VIEW', 'INBOX_ASSIGN'] },
        { id: `/api/user_roles/${r2.body.id}`, permissions: ['INBOX_VIEW', 'INBOX_STATISTICS'] },
      ],
    });
    expect(ok.status).toBe(200);
    expect(ok.body.items.find((r) => r.id === r1.body.id)?.permissions).toEqual(['INBOX_VIEW', 'INBOX_ASSIGN']);
    // one bad entry: nothing changes
    const bad = await call('POST', '/user_roles/inbox/update', {
      roles: [
        { id: r1.body.id, permissions: ['INBOX_VIEW'] },
        { id: platform.body.id, permissions: ['INBOX_VIEW'] },
      ],
    });
    expect(bad.status).toBe(400);
    expect((await call<Role>('GET', `/user_roles/${r1.body.id}`)).body.permissions).toEqual(['INBOX_VIEW', 'INBOX_ASSIGN']);
    const agent = await a.seed.systemRole(INBOX_AGENT_ROLE);
    expect((await call('POST', '/user_roles/inbox/update', { roles: [{ id: agent.id, permissions: [] }] })).status).toBe(403);
  });

  it('deletes a custom role: members holding it lose it, one left with no role gets status -1', async () => {
    const role = await call<Role>('POST', '/user_roles', { name: 'Temporary', permissions: ['STREAM_VIEW'] });
    const member = await a.seed.createUser({ email: 'temp@example.com', password: 'correct horse battery' });
    await a.seed.addMember({ userId: member.id, accountId: account, platformRoleId: String(role.body.id), status: 2 });
    expect((await call('DELETE', `/user_roles/${role.body.id}`)).status).toBe(204);
    expect((await call('GET', `/user_roles/${role.body.id}`)).status).toBe(404);
    const m = await call<{ status: number; platformRole: unknown }>('GET', `/users/${member.id}`);
    expect(m.body).toMatchObject({ status: -1, platformRole: null });
    // the name is free again
    expect((await call<Role>('POST', '/user_roles', { name: 'Temporary' })).body.name).toBe('Temporary');
  });
});
