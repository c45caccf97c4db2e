import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ALL_PERMISSIONS, ErrorCode } from '@switchboard/contracts';
import { AppError, type Principal } from '@switchboard/platform';
import type { UserEntity } from '../entities';
import { UserRepository } from '../repositories';
import { missingGrants } from '../rules/grants';
import { isUserSession } from '../rules/principals';
import { AccessService } from './access.service';

/** The signed-in person behind a management call, with what they may hand out now. */
export interface Actor {
  user: UserEntity;
  userId: string;
  accountId: string;
  superAdmin: boolean;
  /**
   * The permissions the actor holds right now: the token's permissions that the database still grants (a token is
   * up to 15 min old; a narrower token never widens). Everything for a super admin.
   */
  held: ReadonlySet<string>;
  impersonatorId: string | null;
}

@Injectable()
export class ActorService {
  constructor(
    private readonly users: UserRepository,
    private readonly access: AccessService,
  ) {}

  /** The user of a session token, refused for API keys, live-channel tokens and users who can no longer sign in. */
  async user(p: Principal, m?: EntityManager): Promise<UserEntity> {
    if (!isUserSession(p)) throw AppError.forbidden('this call needs a user session', ErrorCode.AccessDenied);
    const user = await this.users.findById(p.userId as string, m);
    if (!user || !user.active) throw AppError.unauthorized('this user can no longer sign in');
    return user;
  }

  /** The actor in the token's account; 403 ACCESS_DENIED when the account can no longer be entered. */
  async resolve(p: Principal, m?: EntityManager): Promise<Actor> {
    const user = await this.user(p, m);
    const accountId = p.accountId;
    if (!accountId) throw AppError.forbidden('no account selected', ErrorCode.AccessDenied);
    const snap = await this.access.snapshot(user, accountId, m);
    if (snap.accountId !== accountId) throw AppError.forbidden('you can no longer work in this account', ErrorCode.AccessDenied);
    const held = user.superAdmin && p.superAdmin ? new Set<string>(ALL_PERMISSIONS) : new Set(snap.permissions.filter((x) => p.superAdmin || p.permissions.includes(x)));
    return { user, userId: user.id, accountId, superAdmin: user.superAdmin && p.superAdmin, held, impersonatorId: p.impersonatorId ?? null };
  }

  /** 403 unless the actor holds every permission in `perms` (no escalation through roles, invites, members or keys). */
  assertCanGrant(actor: Actor, perms: Iterable<string>, what: string): void {
    const missing = missingGrants(perms, actor.held);
    if (missing.length) throw AppError.forbidden(`you cannot ${what} with permissions you do not hold: ${missing.join(', ')}`);
  }
}
