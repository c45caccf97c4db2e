import type { Violation } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';
import type { EntityManager } from 'typeorm';
import type { RoleEntity } from '../entities';
import type { RoleRepository } from '../repositories';
import { parseRef } from '../rules/refs';

export interface RolePair {
  platform: RoleEntity | null;
  inbox: RoleEntity | null;
}

/**
 * `user_roles_ids` of an invite or a member (spec 3: one platform role and one inbox role): ids or IRIs of live
 * roles the account may use. A malformed list is 400; an id that is not such a role is 404, as for any other
 * account's id.
 */
export async function resolveRolePair(roles: RoleRepository, accountId: string, refs: unknown[], path = 'user_roles_ids', m?: EntityManager): Promise<RolePair> {
  const violations: Violation[] = [];
  const ids: string[] = [];
  refs.forEach((r, i) => {
    const id = parseRef(r, 'user_roles');
    if (!id) violations.push({ propertyPath: `${path}[${i}]`, message: 'must be a role id or /api/user_roles/{id}', code: 'invalidRef' });
    else if (!ids.includes(id)) ids.push(id);
  });
  if (violations.length) throw AppError.validation(violations);
  const found = await roles.findUsable(ids, accountId, m);
  if (found.length !== ids.length) throw AppError.notFound('role');
  const platform = found.filter((r) => r.roleType === 'platform');
  const inbox = found.filter((r) => r.roleType === 'inbox');
  if (platform.length > 1) violations.push({ propertyPath: path, message: 'at most one platform role', code: 'onePlatformRole' });
  if (inbox.length > 1) violations.push({ propertyPath: path, message: 'at most one inbox role', code: 'oneInboxRole' });
  if (violations.length) throw AppError.validation(violations);
  return { platform: platform[0] ?? null, inbox: inbox[0] ?? null };
}

export const pairPermissions = (pair: RolePair): string[] => [...new Set([...(pair.platform?.permissions ?? []), ...(pair.inbox?.permissions ?? [])])];
