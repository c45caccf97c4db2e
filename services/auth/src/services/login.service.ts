import { Inject, Injectable, Logger } from '@nestjs/common';
import { UserSignedInV1 } from '@switchboard/contracts';
import { AppError, Mailer, RequestContext } from '@switchboard/platform';
import { AUTH_OPTIONS, type ResolvedAuthOptions } from '../auth.options';
import { CaptchaVerifier } from '../captcha';
import { Clock } from '../clock';
import type { UserEntity } from '../entities';
import { loginFailed, RetryLaterError } from '../errors';
import { LoginChallengeRepository, UserRepository } from '../repositories';
import { maskEmail, normalizeEmail } from '../rules/email';
import { generatePin, hashPin, judgePin, newPinSalt, PIN_LENGTH, resendWait, type PinVerdict } from '../rules/pin';
import { normalizeIp } from '../rules/throttle-window';
import { AccessService } from './access.service';
import { AuthUnitOfWork } from './auth-events.service';
import { PasswordService } from './password.service';
import { ThrottleService, type AttemptTicket } from './throttle.service';
import { TokenService, type TokenPair } from './token.service';

export interface Credentials {
  username: string;
  password: string;
  gCaptchaToken?: string;
}

export interface LoginChallengeAnswer {
  maskedEmail: string;
  pinLength: number;
  resendAfter: number;
}

const PIN_MESSAGES: Record<Exclude<PinVerdict, 'accepted'>, string> = {
  wrong: 'invalid PIN',
  missing: 'no PIN was requested: sign in again',
  used: 'this PIN has been used: request a new one',
  exhausted: 'too many wrong PINs: request a new one',
  expired: 'the PIN has expired: request a new one',
};

/**
 * Two-step sign-in (spec 2 and 4): password, then a 6-digit PIN sent by email. The first step answers where the
 * PIN went and nothing else; only the second opens a session.
 */
@Injectable()
export class LoginService {
  private readonly logger = new Logger('auth');

  constructor(
    @Inject(AUTH_OPTIONS) private readonly options: ResolvedAuthOptions,
    @Inject(Mailer) private readonly mailer: Mailer,
    private readonly captcha: CaptchaVerifier,
    private readonly users: UserRepository,
    private readonly challenges: LoginChallengeRepository,
    private readonly passwords: PasswordService,
    private readonly throttle: ThrottleService,
    private readonly access: AccessService,
    private readonly tokens: TokenService,
    private readonly uow: AuthUnitOfWork,
    private readonly clock: Clock,
  ) {}

  /** POST /login_check: checks the password and emails a PIN. Calling it again is the resend. */
  async requestPin(c: Credentials): Promise<LoginChallengeAnswer> {
    const { user, ip, ticket } = await this.checkCredentials(c);
    await this.throttle.notAFailure(ticket);
    const now = this.clock.now();
    const pin = generatePin(PIN_LENGTH);
    const salt = newPinSalt();
    const resendMs = this.options.pinResendSeconds * 1000;
    const id = await this.challenges.replace(
      { userId: user.id, pinSalt: salt, pinHash: hashPin(pin, salt), sentAt: now, expiresAt: new Date(now.getTime() + this.options.pinTtlSeconds * 1000) },
      new Date(now.getTime() - resendMs),
    );
    if (!id) {
      const wait = Math.max(1, resendWait(await this.challenges.findByUser(user.id), now, this.options.pinResendSeconds));
      throw new RetryLaterError(`a PIN was sent less than ${this.options.pinResendSeconds} s ago`, wait);
    }
    try {
      await this.mailer.send(this.pinMail(user, pin));
    } catch (e) {
      await this.challenges.delete(id);
      this.logger.error(`could not send the sign-in PIN to user ${user.id}: ${e instanceof Error ? e.message : String(e)}`);
      throw new AppError(503, 'MAIL_UNAVAILABLE', 'the sign-in code could not be sent: try again later');
    }
    this.logger.debug(`PIN sent to user ${user.id} from ${ip ?? 'unknown address'}`);
    return { maskedEmail: maskEmail(user.email), pinLength: PIN_LENGTH, resendAfter: this.options.pinResendSeconds };
  }

  /** POST /login/manual: password again, then the PIN of the current challenge; opens a session. */
  async signIn(c: Credentials & { pin: string }): Promise<TokenPair> {
    const { user, ip, ticket } = await this.checkCredentials(c);
    const outcome = await this.uow.run(async (m, emit) => {
      const challenge = await this.challenges.lockByUser(user.id, m);
      const verdict = judgePin(challenge, c.pin, this.clock.now(), this.options.pinMaxAttempts);
      if (verdict !== 'accepted') {
        if (verdict === 'wrong' && challenge) await this.challenges.recordWrongPin(challenge.id, m);
        return { verdict };
      }
      await this.challenges.consume(challenge!.id, this.clock.now(), m);
      const accountId = await this.access.defaultAccountId(user, m);
      const session = await this.tokens.startSession(m, user, accountId);
      emit(UserSignedInV1, { userId: user.id, accountId: session.accountId, familyId: session.familyId, ip, impersonatorId: null }, session.accountId);
      return { verdict, pair: session.pair };
    });
    // a wrong PIN stays counted (the attempt was counted when it began)
    if (!('pair' in outcome) || !outcome.pair) throw loginFailed(PIN_MESSAGES[outcome.verdict as Exclude<PinVerdict, 'accepted'>]);
    await this.throttle.signedIn(ticket);
    return outcome.pair;
  }

  /**
   * Throttle, captcha, then the password (against a dummy hash for unknown users). The attempt is counted as a
   * failure when it begins (atomically with the throttle's check); the caller forgives it once it turns out right.
   */
  private async checkCredentials(c: Credentials): Promise<{ user: UserEntity; email: string; ip: string | null; ticket: AttemptTicket }> {
    const email = normalizeEmail(c.username);
    const ip = normalizeIp(RequestContext.current()?.ip);
    const ticket = await this.throttle.begin(email, ip);
    if (!(await this.captcha.verify(c.gCaptchaToken, ip))) {
      await this.throttle.notAFailure(ticket);
      throw AppError.validation([{ propertyPath: 'gCaptchaToken', message: 'captcha verification failed', code: 'captcha' }], 'captcha verification failed');
    }
    const user = await this.users.findByEmail(email);
    const ok = await this.passwords.verify(c.password, user ? user.passwordHash : null);
    if (!user || !ok || !user.active) throw loginFailed();
    return { user, email, ip, ticket };
  }

  private pinMail(user: UserEntity, pin: string) {
    const minutes = Math.round(this.options.pinTtlSeconds / 60);
    return {
      to: user.email,
      subject: 'Your Switchboard sign-in code',
      text: [
        `Your sign-in code is ${pin}`,
        '',
        `It expires in ${minutes} minute${minutes === 1 ? '' : 's'} and works once.`,
        'If you did not try to sign in, change your password: someone knows it.',
      ].join('\n'),
    };
  }
}
