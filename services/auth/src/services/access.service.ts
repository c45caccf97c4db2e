import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ALL_PERMISSIONS, ErrorCode } from '@switchboard/contracts';
import { AppError, SUPER_ADMIN_ROLE } from '@switchboard/platform';
import { ENTERING_STATUSES, type AccountEntity, type UserEntity } from '../entities';
import { AccountRepository, MembershipRepository, RoleRepository } from '../repositories';

export const USER_ROLE = 'ROLE_USER';

/** What an access token says about a user in one account. */
export interface AccessSnapshot {
  accountId: string | null;
  permissions: string[];
  roles: string[];
  superAdmin: boolean;
}

/**
 * Which accounts a user may enter and what they may do there. Super admins enter every live account (disabled ones
 * too) with every permission; other users enter the live accounts where they are owner or active member, and get
 * the permissions of their platform and inbox roles there. A disabled account is shown but not entered.
 */
@Injectable()
export class AccessService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly memberships: MembershipRepository,
    private readonly roles: RoleRepository,
  ) {}

  rolesOf(user: UserEntity): string[] {
    return user.superAdmin ? [USER_ROLE, SUPER_ADMIN_ROLE] : [USER_ROLE];
  }

  /** The accounts listed for the user (`customers` of the profile): a super admin sees them all. */
  visibleAccounts(user: UserEntity, m?: EntityManager): Promise<AccountEntity[]> {
    return user.superAdmin ? this.accounts.findAllLive(m) : this.accounts.findEnterableBy(user.id, m);
  }

  /** The account a new session opens in: the only one the user has (and may enter), else none until chosen. */
  async defaultAccountId(user: UserEntity, m?: EntityManager): Promise<string | null> {
    const visible = await this.visibleAccounts(user, m);
    if (visible.length !== 1) return null;
    return user.superAdmin || visible[0].status !== 'disable' ? visible[0].id : null;
  }

  /** The account to switch to, or 404 (not a member: it does not exist for you) / 403 ACCESS_DENIED (disabled). */
  async enterableAccount(user: UserEntity, accountId: string, m?: EntityManager): Promise<AccountEntity> {
    const account = await this.accounts.findById(accountId, m);
    if (!account || account.status === 'delete') throw AppError.notFound('account');
    if (user.superAdmin) return account;
    const ms = await this.memberships.find(user.id, accountId, m);
    if (!ms || !ENTERING_STATUSES.includes(ms.status)) throw AppError.notFound('account');
    if (account.status === 'disable') throw AppError.forbidden('this account is disabled', ErrorCode.AccessDenied);
    return account;
  }

  /**
   * The claims for `accountId` as of now. A session whose account is no longer enterable (membership removed,
   * account disabled or deleted) continues without an account rather than with stale permissions.
   */
  async snapshot(user: UserEntity, accountId: string | null, m?: EntityManager): Promise<AccessSnapshot> {
    const base = { roles: this.rolesOf(user), superAdmin: user.superAdmin };
    if (!accountId) return { ...base, accountId: null, permissions: [] };
    try {
      await this.enterableAccount(user, accountId, m);
    } catch (e) {
      if (e instanceof AppError && (e.status === 404 || e.status === 403)) return { ...base, accountId: null, permissions: [] };
      throw e;
    }
    if (user.superAdmin) return { ...base, accountId, permissions: [...ALL_PERMISSIONS] };
    return { ...base, accountId, permissions: await this.permissionsIn(user.id, accountId, m) };
  }

  private async permissionsIn(userId: string, accountId: string, m?: EntityManager): Promise<string[]> {
    const ms = await this.memberships.find(userId, accountId, m);
    if (!ms) return [];
    const ids = [ms.platformRoleId, ms.inboxRoleId].filter((x): x is string => !!x);
    const roles = await this.roles.findUsable(ids, accountId, m);
    return [...new Set(roles.flatMap((r) => r.permissions))].sort();
  }
}
