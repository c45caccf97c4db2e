import { ALL_PERMISSIONS, permissionRoleType } from '@switchboard/contracts';
import { SYSTEM_ROLES } from './system-roles';

describe('system roles', () => {
  it('are the tenant owner and the three inbox roles, in the spec order', () => {
    expect(SYSTEM_ROLES.map((r) => [r.name, r.roleType, r.sortRank])).toEqual([
      ['Tenant owner', 'platform', 0],
      ['Inbox Admin', 'inbox', 1],
      ['Inbox Manager', 'inbox', 2],
      ['Inbox Agent', 'inbox', 3],
    ]);
  });

  it('give the owner everything and the inbox roles only inbox permissions, each narrower than the one above', () => {
    const [owner, admin, manager, agent] = SYSTEM_ROLES;
    expect([...owner.permissions].sort()).toEqual([...ALL_PERMISSIONS].sort());
    for (const r of [admin, manager, agent]) expect(r.permissions.every((p) => permissionRoleType(p) === 'inbox')).toBe(true);
    expect(manager.permissions.every((p) => admin.permissions.includes(p))).toBe(true);
    expect(agent.permissions.every((p) => manager.permissions.includes(p))).toBe(true);
    expect(manager.permissions).not.toContain('INBOX_ADMIN');
    expect(agent.permissions).toContain('INBOX_VIEW');
    expect(agent.permissions.length).toBeLessThan(manager.permissions.length);
  });
});
