import { Injectable } from '@nestjs/common';
import { AccessRevocationReason, SessionRevocationReason, TeamMemberStatus, type Violation } from '@switchboard/contracts';
import { AppError, parseListQuery, RequestContext, type ListResult, type Principal } from '@switchboard/platform';
import { Clock } from '../clock';
import { AuditAction, MembershipStatus, type MembershipStatusValue } from '../entities';
import { AuditLogRepository, MembershipRepository, RoleRepository, UserRepository, type MemberRow } from '../repositories';
import { normalizeIp } from '../rules/throttle-window';
import { ActorService, type Actor } from './actor.service';
import { AuthUnitOfWork } from './auth-events.service';
import { MemberEvents } from './member-events.service';
import { pairPermissions, resolveRolePair } from './role-assignment';
import { TeamNotifier } from './team-notifier.service';
import { TokenService } from './token.service';
import type { MemberDto } from '@switchboard/contracts';

export type { MemberDto };

const roleRefDto = (r: { id: string; name: string } | null) => (r ? { id: Number(r.id), name: r.name } : null);


export const toMemberDto = (r: MemberRow): MemberDto => ({
  id: Number(r.userId),
  email: r.email,
  firstName: r.firstName,
  lastName: r.lastName,
  status: r.status,
  platformRole: roleRefDto(r.platformRole),
  inboxRole: roleRefDto(r.inboxRole),
  user_roles_ids: [r.platformRole, r.inboxRole].filter((x): x is { id: string; name: string } => !!x).map((x) => Number(x.id)),
  userPermissions: r.permissions,
  superAdmin: r.superAdmin,
  createdAt: r.createdAt.toISOString(),
});

const MEMBER_STATUSES = new Set<number>(Object.values(TeamMemberStatus));

/** The status a member has with these roles: no role -1 unless owner or disabled. */
export function statusWithRoles(current: MembershipStatusValue, hasRole: boolean): MembershipStatusValue {
  if (current === MembershipStatus.Owner || current === MembershipStatus.Disabled) return current;
  return hasRole ? MembershipStatus.Active : MembershipStatus.NoRole;
}

/**
 * Team members of an account: list, roles, enable/disable, removal. Nobody changes their own place; the owner's is
 * changed only by a super admin; nobody manages a member holding permissions they do not hold, or gives roles
 * carrying such permissions.
 */
@Injectable()
export class TeamService {
  constructor(
    private readonly memberships: MembershipRepository,
    private readonly roles: RoleRepository,
    private readonly audit: AuditLogRepository,
    private readonly actors: ActorService,
    private readonly tokens: TokenService,
    private readonly memberEvents: MemberEvents,
    private readonly notifier: TeamNotifier,
    private readonly uow: AuthUnitOfWork,
    private readonly clock: Clock,
    private readonly users: UserRepository,
  ) {}

  /**
   * `PUT /users/{id}/disable` and `/enable` (super admin): a user disabled everywhere. Disabling ends every session of
   * the user and revokes their access tokens in every account at once (`auth.user.access_revoked` with no account,
   * docs/decisions/0029); sign-in and refresh refuse them from then on. Audited with the caller's account, if any.
   */
  async setUserActive(p: Principal, userId: string, active: boolean): Promise<{ id: number; active: boolean }> {
    if (!active && (userId === p.userId || userId === p.impersonatorId)) throw AppError.forbidden('you cannot disable yourself');
    await this.uow.run(async (m, emit) => {
      const user = await this.users.findById(userId, m);
      if (!user) throw AppError.notFound('user');
      if (user.active === active) return;
      const at = this.clock.now();
      await this.users.update(userId, { active, updatedAt: at }, m);
      if (!active) {
        await this.tokens.revokeSessions(m, emit, userId, SessionRevocationReason.Admin);
        this.tokens.revokeAccess(emit, userId, null, AccessRevocationReason.Disabled);
      }
      await this.audit.record(
        { accountId: p.accountId, actorId: p.impersonatorId ?? p.userId, targetId: userId, action: active ? AuditAction.UserEnabled : AuditAction.UserDisabled, at, ip: normalizeIp(RequestContext.current()?.ip), details: {} },
        m,
      );
    });
    return { id: Number(userId), active };
  }

  async list(p: Principal, query: Record<string, unknown>): Promise<ListResult<MemberDto>> {
    const actor = await this.actors.resolve(p);
    const { status: rawStatus, q: rawSearch, ...rest } = query;
    const q = parseListQuery(rest, { sortable: ['id', 'email', 'createdAt', 'status'], defaultItemsPerPage: 500 });
    const violations: Violation[] = [];
    let status: MembershipStatusValue | undefined;
    if (rawStatus !== undefined) {
      const n = typeof rawStatus === 'string' && /^-?\d$/.test(rawStatus) ? Number(rawStatus) : NaN;
      if (!MEMBER_STATUSES.has(n)) violations.push({ propertyPath: 'status', message: 'one of -1, 0, 1, 2, 3', code: 'status' });
      else status = n as MembershipStatusValue;
    }
    if (rawSearch !== undefined && (typeof rawSearch !== 'string' || rawSearch.length > 100)) violations.push({ propertyPath: 'q', message: 'a text of at most 100 characters', code: 'q' });
    if (violations.length) throw AppError.validation(violations);
    const [rows, total] = await this.memberships.list(actor.accountId, { status, search: (rawSearch as string | undefined)?.trim() || undefined, skip: q.skip, take: q.take, order: q.order });
    return { items: rows.map(toMemberDto), total };
  }

  async get(p: Principal, userId: string): Promise<MemberDto> {
    const actor = await this.actors.resolve(p);
    return toMemberDto(await this.member(actor, userId));
  }

  /** POST /users/roles: a member's platform and inbox roles. */
  async setRoles(p: Principal, userId: string, refs: unknown[]): Promise<MemberDto> {
    const actor = await this.actors.resolve(p);
    const target = await this.manageable(actor, userId, 'change your own role');
    const pair = await resolveRolePair(this.roles, actor.accountId, refs);
    this.actors.assertCanGrant(actor, pairPermissions(pair), 'give roles');
    const row = await this.uow.run(async (m, emit) => {
      const ms = await this.memberships.lock(target.userId, actor.accountId, m);
      if (!ms) throw AppError.notFound('team member');
      const status = statusWithRoles(ms.status, !!(pair.platform || pair.inbox));
      await this.memberships.update(target.userId, actor.accountId, { platformRoleId: pair.platform?.id ?? null, inboxRoleId: pair.inbox?.id ?? null, status }, m);
      await this.record(m, actor, target.userId, AuditAction.MemberRolesChanged, { platformRoleId: pair.platform?.id ?? null, inboxRoleId: pair.inbox?.id ?? null });
      await this.memberEvents.changed(m, emit, actor.accountId, [target.userId]);
      // tokens carrying the old roles' permissions are refused in this account at once; a refresh brings the new ones
      this.tokens.revokeAccess(emit, target.userId, actor.accountId, AccessRevocationReason.RolesChanged);
      return (await this.memberships.member(actor.accountId, target.userId, m)) as MemberRow;
    });
    await this.notifier.changed(actor.accountId, 'team.changed', { userId: target.userId });
    return toMemberDto(row);
  }

  /** PUT /users/{id} {status}: disable (3) or enable (2) a member. Disabling ends their sessions in the account. */
  async setStatus(p: Principal, userId: string, wanted: number): Promise<MemberDto> {
    const actor = await this.actors.resolve(p);
    if (wanted !== MembershipStatus.Active && wanted !== MembershipStatus.Disabled) {
      throw AppError.validation([{ propertyPath: 'status', message: 'must be 2 (active) or 3 (disabled)', code: 'status' }]);
    }
    const target = await this.manageable(actor, userId, 'change your own status');
    const row = await this.uow.run(async (m, emit) => {
      const ms = await this.memberships.lock(target.userId, actor.accountId, m);
      if (!ms) throw AppError.notFound('team member');
      const status = wanted === MembershipStatus.Disabled ? MembershipStatus.Disabled : ms.platformRoleId || ms.inboxRoleId ? MembershipStatus.Active : MembershipStatus.NoRole;
      await this.memberships.update(target.userId, actor.accountId, { status }, m);
      if (status === MembershipStatus.Disabled) {
        await this.tokens.revokeSessions(m, emit, target.userId, SessionRevocationReason.Admin, actor.accountId);
        // also the tokens of this account held by sessions that have moved on to another account since
        this.tokens.revokeAccess(emit, target.userId, actor.accountId, AccessRevocationReason.Disabled);
      }
      await this.record(m, actor, target.userId, AuditAction.MemberStatusChanged, { from: ms.status, to: status });
      await this.memberEvents.changed(m, emit, actor.accountId, [target.userId]);
      return (await this.memberships.member(actor.accountId, target.userId, m)) as MemberRow;
    });
    await this.notifier.changed(actor.accountId, 'team.changed', { userId: target.userId });
    return toMemberDto(row);
  }

  /** DELETE /users/{id}: the user leaves the account; their sessions in it end. The user keeps their other accounts. */
  async remove(p: Principal, userId: string): Promise<void> {
    const actor = await this.actors.resolve(p);
    const target = await this.manageable(actor, userId, 'remove yourself');
    await this.uow.run(async (m, emit) => {
      await this.memberships.delete(target.userId, actor.accountId, m);
      await this.tokens.revokeSessions(m, emit, target.userId, SessionRevocationReason.Admin, actor.accountId);
      this.tokens.revokeAccess(emit, target.userId, actor.accountId, AccessRevocationReason.Removed);
      await this.record(m, actor, target.userId, AuditAction.MemberRemoved, {});
      this.memberEvents.removed(emit, target);
    });
    await this.notifier.changed(actor.accountId, 'team.changed', { userId: target.userId, removed: true });
  }

  private async member(actor: Actor, userId: string): Promise<MemberRow> {
    const row = await this.memberships.member(actor.accountId, userId);
    if (!row) throw AppError.notFound('team member');
    return row;
  }

  /** A member the actor may manage: not themselves, not the owner (unless super admin), none of whose permissions the actor lacks. */
  private async manageable(actor: Actor, userId: string, selfAction: string): Promise<MemberRow> {
    const target = await this.member(actor, userId);
    if (target.userId === actor.userId || target.userId === actor.impersonatorId) throw AppError.forbidden(`you cannot ${selfAction}`);
    if (target.status === MembershipStatus.Owner && !actor.superAdmin) throw AppError.forbidden('only a super administrator can change the account owner');
    if (target.superAdmin && !actor.superAdmin) throw AppError.forbidden('only a super administrator can change a super administrator');
    this.actors.assertCanGrant(actor, target.permissions, 'manage a member');
    return target;
  }

  private record(m: Parameters<AuditLogRepository['record']>[1], actor: Actor, targetId: string, action: (typeof AuditAction)[keyof typeof AuditAction], details: Record<string, unknown>) {
    return this.audit.record(
      { accountId: actor.accountId, actorId: actor.impersonatorId ?? actor.userId, targetId, action, at: this.clock.now(), ip: normalizeIp(RequestContext.current()?.ip), details: actor.impersonatorId ? { ...details, onBehalfOf: actor.userId } : details },
      m,
    );
  }
}
