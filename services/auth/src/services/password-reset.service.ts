import { Inject, Injectable, Logger } from '@nestjs/common';
import { SessionRevocationReason, UserSignedInV1, type Violation } from '@switchboard/contracts';
import { AppError, Mailer, RequestContext, type Principal } from '@switchboard/platform';
import { AUTH_OPTIONS, type ResolvedAuthOptions } from '../auth.options';
import { Clock } from '../clock';
import { AuditAction, type UserEntity } from '../entities';
import { AuditLogRepository, PasswordResetRepository, UserRepository } from '../repositories';
import { normalizeEmail } from '../rules/email';
import { passwordViolations } from '../rules/password-policy';
import { newSecret, sha256Hex } from '../rules/secrets';
import { normalizeIp } from '../rules/throttle-window';
import { ActorService } from './actor.service';
import { AuthUnitOfWork } from './auth-events.service';
import { PasswordService } from './password.service';
import { ThrottleService } from './throttle.service';
import { TokenService, type TokenPair } from './token.service';

export interface ResetAnswer {
  status: 1;
}

const LINK_INVALID = 'this password reset link is invalid or has expired';

/**
 * Passwords: forgot and reset by an emailed single-use link (1 hour), and change while signed in. The answers never
 * say whether an address has an account. Every change ends all the user's sessions (`auth.session.revoked`).
 */
@Injectable()
export class PasswordResetService {
  private readonly logger = new Logger('auth');

  constructor(
    @Inject(AUTH_OPTIONS) private readonly options: ResolvedAuthOptions,
    @Inject(Mailer) private readonly mailer: Mailer,
    private readonly users: UserRepository,
    private readonly resets: PasswordResetRepository,
    private readonly audit: AuditLogRepository,
    private readonly passwords: PasswordService,
    private readonly throttle: ThrottleService,
    private readonly tokens: TokenService,
    private readonly actors: ActorService,
    private readonly uow: AuthUnitOfWork,
    private readonly clock: Clock,
  ) {}

  /**
   * POST /users/reset_password/send_email. The same answer whether or not the address exists, is disabled, or was
   * sent a link less than a minute ago; the mail goes out after the answer, so its time does not tell either.
   */
  async sendEmail(rawEmail: string): Promise<ResetAnswer> {
    const email = normalizeEmail(rawEmail);
    const user = await this.users.findByEmail(email);
    if (!user || !user.active) return { status: 1 };
    const now = this.clock.now();
    const last = await this.resets.latestOf(user.id);
    if (last && now.getTime() - last.createdAt.getTime() < this.options.passwordResetResendSeconds * 1000) return { status: 1 };
    const token = newSecret();
    await this.resets.insert({ userId: user.id, tokenHash: sha256Hex(token), createdAt: now, expiresAt: new Date(now.getTime() + this.options.passwordResetTtlSeconds * 1000) });
    this.mailer.send(this.resetMail(user, token)).catch((e: unknown) => this.logger.error(`could not send the password reset mail to user ${user.id}: ${e instanceof Error ? e.message : String(e)}`));
    return { status: 1 };
  }

  /** POST /users/reset_password/check_token: whether the link still works (one answer for every reason it does not). */
  async checkToken(rawEmail: string, token: string): Promise<ResetAnswer> {
    const user = await this.users.findByEmail(normalizeEmail(rawEmail));
    const reset = user ? await this.resets.findByHash(sha256Hex(token)) : null;
    if (!user || !user.active || !reset || reset.userId !== user.id || reset.usedAt || reset.expiresAt.getTime() <= this.clock.now().getTime()) {
      throw AppError.notFound(LINK_INVALID);
    }
    return { status: 1 };
  }

  /** POST /users/reset_password/update_password: sets the password through the link, once. */
  async updatePassword(rawEmail: string, token: string, password: string): Promise<ResetAnswer> {
    const email = normalizeEmail(rawEmail);
    const violations = passwordViolations(password, 'password', email);
    if (violations.length) throw AppError.validation(violations);
    const passwordHash = await this.passwords.hash(password);
    await this.uow.run(async (m, emit) => {
      const user = await this.users.findByEmail(email, m);
      const reset = user ? await this.resets.lockByHash(sha256Hex(token), m) : null;
      const now = this.clock.now();
      if (!user || !user.active || !reset || reset.userId !== user.id || reset.usedAt || reset.expiresAt.getTime() <= now.getTime()) throw AppError.notFound(LINK_INVALID);
      await this.users.update(user.id, { passwordHash, updatedAt: now }, m);
      await this.resets.useAllOf(user.id, now, m);
      await this.tokens.revokeSessions(m, emit, user.id, SessionRevocationReason.PasswordChanged);
      await this.audit.record({ accountId: null, actorId: user.id, targetId: user.id, action: AuditAction.PasswordReset, at: now, ip: normalizeIp(RequestContext.current()?.ip) }, m);
    });
    // whoever was locked out by failed attempts on this address proved they own it
    await this.throttle.clearEmail(email);
    return { status: 1 };
  }

  /**
   * POST /users/reset_password/logged_in_update_password: the current password, then the new one. Every session of
   * the user ends, this one included; the answer carries a fresh session in the same account.
   */
  async changePassword(p: Principal, oldPassword: string, password: string): Promise<ResetAnswer & TokenPair> {
    const user = await this.actors.user(p);
    if (p.impersonatorId) throw AppError.forbidden('the password cannot be changed while logged in as someone else');
    const ip = normalizeIp(RequestContext.current()?.ip);
    const ticket = await this.throttle.begin(user.email, ip);
    if (!(await this.passwords.verify(oldPassword, user.passwordHash))) {
      throw AppError.validation([{ propertyPath: 'oldPassword', message: 'the current password is not right', code: 'invalidPassword' }]);
    }
    await this.throttle.notAFailure(ticket);
    const violations: Violation[] = passwordViolations(password, 'password', user.email);
    if (password === oldPassword) violations.push({ propertyPath: 'password', message: 'must differ from the current password', code: 'samePassword' });
    if (violations.length) throw AppError.validation(violations);
    const passwordHash = await this.passwords.hash(password);
    const pair = await this.uow.run(async (m, emit) => {
      const now = this.clock.now();
      await this.users.update(user.id, { passwordHash, updatedAt: now }, m);
      await this.resets.useAllOf(user.id, now, m);
      await this.tokens.revokeSessions(m, emit, user.id, SessionRevocationReason.PasswordChanged);
      await this.audit.record({ accountId: p.accountId, actorId: user.id, targetId: user.id, action: AuditAction.PasswordChanged, at: now, ip }, m);
      const fresh = (await this.users.findById(user.id, m)) as UserEntity;
      const session = await this.tokens.startSession(m, fresh, p.accountId);
      emit(UserSignedInV1, { userId: user.id, accountId: session.accountId, familyId: session.familyId, ip, impersonatorId: null }, session.accountId);
      return session.pair;
    });
    return { status: 1, ...pair };
  }

  private resetMail(user: UserEntity, token: string) {
    const link = `${this.options.appUrl}/reset-password/${encodeURIComponent(user.email)}/${token}`;
    const minutes = Math.round(this.options.passwordResetTtlSeconds / 60);
    return {
      to: user.email,
      subject: 'Reset your Switchboard password',
      text: [
        'Someone asked to reset the password of your Switchboard account.',
        '',
        `Open this link to choose a new one: ${link}`,
        '',
        `It works once and expires in ${minutes} minute${minutes === 1 ? '' : 's'}. If you did not ask, ignore this message: your password stays as it is.`,
      ].join('\n'),
    };
  }
}
