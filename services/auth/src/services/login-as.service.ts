import { Injectable } from '@nestjs/common';
import { SessionRevocationReason, SessionRevokedV1, UserSignedInV1 } from '@switchboard/contracts';
import { AppError, RequestContext, type Principal } from '@switchboard/platform';
import { Clock } from '../clock';
import { AuditAction, ENTERING_STATUSES } from '../entities';
import { AuditLogRepository, MembershipRepository, SessionRepository, UserRepository } from '../repositories';
import { normalizeEmail } from '../rules/email';
import { isUserSession } from '../rules/principals';
import { normalizeIp } from '../rules/throttle-window';
import { AccessService } from './access.service';
import { ActorService } from './actor.service';
import { AuthUnitOfWork } from './auth-events.service';
import { TokenService, type TokenPair } from './token.service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface LoginAsAnswer extends TokenPair {
  /** The impersonated address, for the console's "login as {email}" strip. */
  email: string;
}

/**
 * Login-as (spec 2, 4, 6): a super admin or an account admin (holding TENANT_OWNER) opens a session as another
 * member of the current account. Never into a super admin, never from a login-as session, never into someone
 * holding permissions the admin does not. The token carries `imp` = the admin's id, the session family records
 * it, and the audit log keeps both ids. The console keeps the admin's own tokens and restores them on exit.
 */
@Injectable()
export class LoginAsService {
  constructor(
    private readonly users: UserRepository,
    private readonly memberships: MembershipRepository,
    private readonly sessions: SessionRepository,
    private readonly audit: AuditLogRepository,
    private readonly access: AccessService,
    private readonly actors: ActorService,
    private readonly tokens: TokenService,
    private readonly uow: AuthUnitOfWork,
    private readonly clock: Clock,
  ) {}

  async loginAs(p: Principal, rawEmail: string): Promise<LoginAsAnswer> {
    if (p.impersonatorId) throw AppError.forbidden('already logged in as another user: exit first');
    const actor = await this.actors.resolve(p);
    const target = await this.users.findByEmail(normalizeEmail(rawEmail));
    const ms = target ? await this.memberships.find(target.id, actor.accountId) : null;
    if (!target || !target.active || !ms || !ENTERING_STATUSES.includes(ms.status)) throw AppError.notFound('user');
    if (target.id === actor.userId) throw AppError.forbidden('you cannot log in as yourself');
    if (target.superAdmin) throw AppError.forbidden('nobody can log in as a super administrator');
    const snap = await this.access.snapshot(target, actor.accountId);
    this.actors.assertCanGrant(actor, snap.permissions, 'log in as a user');
    const ip = normalizeIp(RequestContext.current()?.ip);
    const pair = await this.uow.run(async (m, emit) => {
      const session = await this.tokens.startSession(m, target, actor.accountId, actor.userId);
      emit(UserSignedInV1, { userId: target.id, accountId: session.accountId, familyId: session.familyId, ip, impersonatorId: actor.userId }, actor.accountId);
      await this.audit.record(
        { accountId: actor.accountId, actorId: actor.userId, targetId: target.id, action: AuditAction.LoginAs, at: this.clock.now(), ip, details: { familyId: session.familyId, email: target.email } },
        m,
      );
      return session.pair;
    });
    return { ...pair, email: target.email };
  }

  /** POST /login-as/exit: ends the login-as session (its refresh token stops working) and records the exit. */
  async exit(p: Principal, sessionId: string | null): Promise<{ status: 1 }> {
    if (!p.impersonatorId || !p.userId || !isUserSession(p)) throw AppError.forbidden('not logged in as another user');
    const impersonatorId = p.impersonatorId;
    await this.uow.run(async (m, emit) => {
      const family = sessionId && UUID.test(sessionId) ? await this.sessions.lockFamily(sessionId, m) : null;
      if (family && family.impersonatorId === impersonatorId && !family.revokedAt) {
        await this.sessions.revokeFamily(family.id, SessionRevocationReason.Logout, this.clock.now(), m);
        emit(SessionRevokedV1, { familyId: family.id, userId: family.userId, reason: SessionRevocationReason.Logout }, p.accountId);
      }
      await this.audit.record(
        { accountId: p.accountId, actorId: impersonatorId, targetId: p.userId, action: AuditAction.LoginAsExit, at: this.clock.now(), ip: normalizeIp(RequestContext.current()?.ip), details: { familyId: sessionId } },
        m,
      );
    });
    return { status: 1 };
  }
}
