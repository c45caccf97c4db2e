import { Injectable } from '@nestjs/common';
import {
  AccessRevocationReason,
  isPermission,
  parseRoleType,
  PERMISSION_GROUPS,
  permissionRoleType,
  RoleTypeCode,
  type PermissionGroup,
  type RoleType,
  type Violation,
} from '@switchboard/contracts';
import { AppError, parseListQuery, type ListResult, type Principal } from '@switchboard/platform';
import type { EntityManager } from 'typeorm';
import { Clock } from '../clock';
import type { RoleEntity } from '../entities';
import { InviteRepository, MembershipRepository, RoleRepository, type RolePatch } from '../repositories';
import { copyName, DEFAULT_ROLE_DESCRIPTION, DEFAULT_ROLE_NAME, ROLE_NAME_MAX, uniqueRoleName } from '../rules/role-names';
import { parseRef } from '../rules/refs';
import { hasForbiddenCharacters, XSS_MESSAGE } from '../rules/text';
import { ActorService, type Actor } from './actor.service';
import { AuthUnitOfWork, type Emit } from './auth-events.service';
import { MemberEvents } from './member-events.service';
import { TeamNotifier } from './team-notifier.service';
import { emitAccessRevoked } from './token.service';
import type { RoleDto } from '@switchboard/contracts';

export type { RoleDto };


export interface CreateRoleInput {
  name?: string;
  description?: string;
  roleType?: unknown;
  permissions?: string[];
  copyOf?: unknown;
}

export interface UpdateRoleInput {
  name?: string;
  description?: string;
  roleType?: unknown;
  permissions?: string[];
}

export const toRoleDto = (r: RoleEntity): RoleDto => ({
  id: Number(r.id),
  name: r.name,
  description: r.description,
  permissions: [...r.permissions],
  roleType: RoleTypeCode[r.roleType],
  readOnly: r.readOnly,
  isDeleted: r.isDeleted,
  customer: r.accountId === null ? null : Number(r.accountId),
});

/** Permissions a role of `type` may hold: known strings of its groups. One violation per bad entry. */
export function permissionViolations(perms: readonly string[], type: RoleType, path = 'permissions'): Violation[] {
  const out: Violation[] = [];
  perms.forEach((p, i) => {
    if (!isPermission(p)) out.push({ propertyPath: `${path}[${i}]`, message: `unknown permission ${p}`, code: 'unknownPermission' });
    else if (permissionRoleType(p) !== type) out.push({ propertyPath: `${path}[${i}]`, message: `${p} belongs to ${permissionRoleType(p)} roles, not ${type} roles`, code: 'roleType' });
  });
  return out;
}

function nameViolations(name: string | undefined, path = 'name'): Violation[] {
  if (name === undefined) return [];
  if (name.trim() === '') return [{ propertyPath: path, message: 'errors.client.required', code: 'required' }];
  if (name.trim().length >= ROLE_NAME_MAX) return [{ propertyPath: path, message: 'errors.client.charLimit', code: 'charLimit' }];
  if (hasForbiddenCharacters(name)) return [{ propertyPath: path, message: XSS_MESSAGE, code: 'xss' }];
  return [];
}

/**
 * Roles (spec 3 and 6): the read-only system roles shared by every account and each account's custom roles.
 * Nobody edits a read-only role; nobody puts into a role a permission they do not hold, nor touches a role holding
 * one they do not hold.
 */
@Injectable()
export class RoleService {
  constructor(
    private readonly roles: RoleRepository,
    private readonly memberships: MembershipRepository,
    private readonly invites: InviteRepository,
    private readonly actors: ActorService,
    private readonly memberEvents: MemberEvents,
    private readonly notifier: TeamNotifier,
    private readonly uow: AuthUnitOfWork,
    private readonly clock: Clock,
  ) {}

  permissionGroups(): readonly PermissionGroup[] {
    return PERMISSION_GROUPS;
  }

  async list(p: Principal, query: Record<string, unknown>, forcedType?: RoleType): Promise<ListResult<RoleDto>> {
    const actor = await this.actors.resolve(p);
    const q = parseListQuery(query, { sortable: ['id', 'name'], defaultOrder: { id: 'ASC' }, defaultItemsPerPage: 500 });
    let roleType = forcedType;
    if (!roleType && query.roleType !== undefined) {
      roleType = parseRoleType(query.roleType) ?? undefined;
      if (!roleType) throw AppError.validation([{ propertyPath: 'roleType', message: 'must be 1 (platform) or 2 (inbox)', code: 'roleType' }]);
    }
    const [rows, total] = await this.roles.list(actor.accountId, { roleType, skip: q.skip, take: q.take, order: q.order });
    return { items: rows.map(toRoleDto), total };
  }

  async get(p: Principal, id: string): Promise<RoleDto> {
    const actor = await this.actors.resolve(p);
    return toRoleDto(await this.usable(actor, id));
  }

  /** POST /user_roles: a draft with the spec's defaults, or a copy of a role ("Copy of X"); the name is made unique. */
  async create(p: Principal, input: CreateRoleInput): Promise<RoleDto> {
    const actor = await this.actors.resolve(p);
    const violations: Violation[] = [...nameViolations(input.name)];
    let source: RoleEntity | null = null;
    if (input.copyOf !== undefined) {
      const id = parseRef(input.copyOf, 'user_roles');
      if (!id) violations.push({ propertyPath: 'copyOf', message: 'must be a role id or /api/user_roles/{id}', code: 'invalidRef' });
      else source = await this.usable(actor, id);
    }
    let roleType: RoleType = source?.roleType ?? 'platform';
    if (input.roleType !== undefined) {
      const t = parseRoleType(input.roleType);
      if (!t) violations.push({ propertyPath: 'roleType', message: 'must be 1 (platform) or 2 (inbox)', code: 'roleType' });
      else roleType = t;
    }
    const permissions = [...new Set(input.permissions ?? source?.permissions ?? [])];
    violations.push(...permissionViolations(permissions, roleType));
    if (violations.length) throw AppError.validation(violations);
    this.actors.assertCanGrant(actor, permissions, 'create a role');
    const wanted = input.name?.trim() || (source ? copyName(source.name) : DEFAULT_ROLE_NAME);
    const description = input.description ?? source?.description ?? DEFAULT_ROLE_DESCRIPTION;

    const role = await this.uow.run(async (m, emit) => {
      await this.roles.lockAccountRoles(actor.accountId, m);
      const name = uniqueRoleName(wanted, await this.roles.namesVisibleTo(actor.accountId, m));
      const created = await this.roles.insert(
        { accountId: actor.accountId, name, description, roleType, permissions, readOnly: false, isDeleted: false, createdAt: this.clock.now() },
        m,
      );
      this.memberEvents.role(emit, created);
      return created;
    });
    await this.notifier.changed(actor.accountId, 'roles.changed', { roleId: role.id });
    return toRoleDto(role);
  }

  async update(p: Principal, id: string, input: UpdateRoleInput): Promise<RoleDto> {
    const actor = await this.actors.resolve(p);
    const role = await this.editable(actor, id);
    const violations = nameViolations(input.name);
    if (input.roleType !== undefined && parseRoleType(input.roleType) !== role.roleType) {
      violations.push({ propertyPath: 'roleType', message: 'the type of a role cannot change: copy it instead', code: 'roleType' });
    }
    const permissions = input.permissions ? [...new Set(input.permissions)] : role.permissions;
    violations.push(...permissionViolations(permissions, role.roleType));
    if (violations.length) throw AppError.validation(violations);
    this.actors.assertCanGrant(actor, permissions, 'edit a role');

    const patch: RolePatch = {};
    if (input.description !== undefined) patch.description = input.description;
    if (input.permissions) patch.permissions = permissions;
    const updated = await this.uow.run(async (m, emit) => {
      await this.roles.lockAccountRoles(actor.accountId, m);
      if (input.name !== undefined && input.name.trim().toLowerCase() !== role.name.toLowerCase()) {
        const taken = (await this.roles.namesVisibleTo(actor.accountId, m)).some((n) => n.trim().toLowerCase() === input.name!.trim().toLowerCase());
        if (taken) throw AppError.conflict(`a role named "${input.name.trim()}" exists`);
      }
      if (input.name !== undefined) patch.name = input.name.trim();
      if (Object.keys(patch).length) await this.roles.update(role.id, patch, m);
      const fresh = (await this.roles.findById(role.id, m)) as RoleEntity;
      this.memberEvents.role(emit, fresh);
      if (patch.permissions) await this.emitHolders(m, emit, [role.id]);
      return fresh;
    });
    await this.notifier.changed(actor.accountId, 'roles.changed', { roleId: role.id });
    return toRoleDto(updated);
  }

  /** Soft delete; members and pending invites holding the role lose it (a member left with none has status -1). */
  async delete(p: Principal, id: string): Promise<void> {
    const actor = await this.actors.resolve(p);
    const role = await this.editable(actor, id);
    await this.uow.run(async (m, emit) => {
      await this.roles.update(role.id, { isDeleted: true }, m);
      const touched = await this.memberships.detachRole(role.id, m);
      await this.invites.detachRole(role.id, m);
      this.memberEvents.role(emit, { ...role, isDeleted: true });
      const holders = touched.filter((t) => t.accountId === actor.accountId).map((t) => t.userId);
      await this.memberEvents.changed(m, emit, actor.accountId, holders);
      // their tokens carry the deleted role's permissions: refused at once, a refresh carries what is left
      for (const userId of new Set(holders)) emitAccessRevoked(emit, userId, actor.accountId, AccessRevocationReason.RolesChanged);
    });
    await this.notifier.changed(actor.accountId, 'roles.changed', { roleId: role.id, deleted: true });
  }

  /** POST /user_roles/inbox/update: the inbox permission matrix, several custom inbox roles at once, all or nothing. */
  async updateInbox(p: Principal, entries: Array<{ id: unknown; permissions: string[] }>): Promise<ListResult<RoleDto>> {
    const actor = await this.actors.resolve(p);
    const violations: Violation[] = [];
    const ids = entries.map((e, i) => {
      const id = parseRef(e.id, 'user_roles');
      if (!id) violations.push({ propertyPath: `roles[${i}].id`, message: 'must be a role id', code: 'invalidRef' });
      return id;
    });
    const seen = new Set<string>();
    ids.forEach((id, i) => {
      if (id && seen.has(id)) violations.push({ propertyPath: `roles[${i}].id`, message: 'the same role twice', code: 'duplicate' });
      if (id) seen.add(id);
    });
    if (violations.length) throw AppError.validation(violations);
    const roles: RoleEntity[] = [];
    for (const id of ids as string[]) roles.push(await this.editable(actor, id));
    entries.forEach((e, i) => {
      if (roles[i].roleType !== 'inbox') violations.push({ propertyPath: `roles[${i}].id`, message: 'not an inbox role', code: 'roleType' });
      else violations.push(...permissionViolations(e.permissions, 'inbox', `roles[${i}].permissions`));
    });
    if (violations.length) throw AppError.validation(violations);
    this.actors.assertCanGrant(actor, entries.flatMap((e) => e.permissions), 'edit a role');

    await this.uow.run(async (m, emit) => {
      for (const [i, role] of roles.entries()) {
        const permissions = [...new Set(entries[i].permissions)];
        await this.roles.update(role.id, { permissions }, m);
        this.memberEvents.role(emit, { ...role, permissions });
      }
      await this.emitHolders(m, emit, roles.map((r) => r.id));
    });
    await this.notifier.changed(actor.accountId, 'roles.changed', { roleIds: roles.map((r) => r.id) });
    return this.list(p, {}, 'inbox');
  }

  /** A live role the account may use (system or its own), else 404. */
  private async usable(actor: Actor, id: string): Promise<RoleEntity> {
    const role = await this.roles.findUsableOne(id, actor.accountId);
    if (!role) throw AppError.notFound('role');
    return role;
  }

  /** A custom role of the account whose permissions the actor holds. */
  private async editable(actor: Actor, id: string): Promise<RoleEntity> {
    const role = await this.usable(actor, id);
    if (role.readOnly || role.accountId === null) throw AppError.forbidden('this role is read-only');
    this.actors.assertCanGrant(actor, role.permissions, 'change a role');
    return role;
  }

  /** Members whose permissions changed with their roles: new snapshots for the read models. */
  private async emitHolders(m: EntityManager, emit: Emit, roleIds: string[]): Promise<void> {
    const holders = await this.memberships.holdersOf(roleIds, m);
    const byAccount = new Map<string, string[]>();
    for (const h of holders) byAccount.set(h.accountId, [...(byAccount.get(h.accountId) ?? []), h.userId]);
    for (const [accountId, userIds] of byAccount) {
      await this.memberEvents.changed(m, emit, accountId, userIds);
      // their tokens carry the role's old permissions: refused at once, a refresh carries the new ones
      for (const userId of new Set(userIds)) emitAccessRevoked(emit, userId, accountId, AccessRevocationReason.RolesChanged);
    }
  }
}
