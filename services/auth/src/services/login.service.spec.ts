import { Logger } from '@nestjs/common';
import { ErrorCode } from '@switchboard/contracts';
import { AppError, Mailer, RequestContext } from '@switchboard/platform';
import { resolveAuthOptions } from '../auth.options';
import { NoCaptchaVerifier } from '../captcha';
import { ManualClock } from '../clock';
import type { UserEntity } from '../entities';
import { RetryLaterError } from '../errors';
import type { LoginChallengeRepository, UserRepository } from '../repositories';
import type { AccessService } from './access.service';
import type { AuthUnitOfWork } from './auth-events.service';
import { LoginService } from './login.service';
import type { PasswordService } from './password.service';
import type { ThrottleService } from './throttle.service';
import type { TokenService } from './token.service';

const key = `-----BEGIN PRIVATE KEY-----\nunused in these tests\n-----END PRIVATE KEY-----`;

describe('LoginService', () => {
  const user = { id: '7', email: 'jane@example.com', passwordHash: '$2b$10$hash', active: true } as UserEntity;
  let users: { findByEmail: jest.Mock };
  let passwords: { verify: jest.Mock };
  let throttle: { begin: jest.Mock; notAFailure: jest.Mock; signedIn: jest.Mock };
  let challenges: { replace: jest.Mock; findByUser: jest.Mock; delete: jest.Mock };
  let mailer: { send: jest.Mock };
  let captcha: NoCaptchaVerifier & { verify: jest.Mock };
  let service: LoginService;
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));

  beforeAll(() => {
    jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterAll(() => jest.restoreAllMocks());

  beforeEach(() => {
    users = { findByEmail: jest.fn(async (e: string) => (e === user.email ? user : null)) };
    passwords = { verify: jest.fn(async (pw: string, hash: string | null) => hash !== null && pw === 'right') };
    throttle = { begin: jest.fn(async (email: string) => ({ ids: ['1'], email })), notAFailure: jest.fn(async () => undefined), signedIn: jest.fn(async () => undefined) };
    challenges = { replace: jest.fn(async () => '1'), findByUser: jest.fn(), delete: jest.fn() };
    mailer = { send: jest.fn(async () => undefined) };
    captcha = Object.assign(new NoCaptchaVerifier(), { verify: jest.fn(async () => true) });
    service = new LoginService(
      resolveAuthOptions({ privateKey: key, captcha: 'none' }),
      mailer as unknown as Mailer,
      captcha,
      users as unknown as UserRepository,
      challenges as unknown as LoginChallengeRepository,
      passwords as unknown as PasswordService,
      throttle as unknown as ThrottleService,
      {} as AccessService,
      {} as TokenService,
      {} as AuthUnitOfWork,
      clock,
    );
  });

  const inRequest = <T>(fn: () => Promise<T>) => RequestContext.run({ principal: null, traceId: 't', ip: '::ffff:192.0.2.1' }, fn);

  it('compares an unknown user against the dummy hash, counts the failure and answers 1801', async () => {
    const err = await inRequest(() => service.requestPin({ username: 'ghost@example.com', password: 'right' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(ErrorCode.LoginFailed);
    expect(passwords.verify).toHaveBeenCalledWith('right', null);
    // counted when it began, and left counted
    expect(throttle.begin).toHaveBeenCalledWith('ghost@example.com', '192.0.2.1');
    expect(throttle.notAFailure).not.toHaveBeenCalled();
  });

  it('answers the same error for a wrong password', async () => {
    const err = (await inRequest(() => service.requestPin({ username: 'jane@example.com', password: 'wrong' })).catch((e: unknown) => e)) as AppError;
    expect([err.status, err.code, err.message]).toEqual([401, 1801, 'invalid credentials']);
  });

  it('asks the throttle first: a throttled caller reaches neither the captcha nor the password check', async () => {
    throttle.begin.mockRejectedValue(new RetryLaterError('later', 12));
    await expect(inRequest(() => service.requestPin({ username: 'jane@example.com', password: 'right' }))).rejects.toBeInstanceOf(RetryLaterError);
    expect(captcha.verify).not.toHaveBeenCalled();
    expect(passwords.verify).not.toHaveBeenCalled();
  });

  it('mails a 6-digit PIN and answers the masked address, and stores only its hash', async () => {
    const answer = await inRequest(() => service.requestPin({ username: ' Jane@Example.com', password: 'right' }));
    expect(answer).toEqual({ maskedEmail: 'j***@example.com', pinLength: 6, resendAfter: 30 });
    const mail = mailer.send.mock.calls[0][0] as { to: string; subject: string; text: string };
    expect(mail.subject).toBe('Your Switchboard sign-in code');
    const pin = /\b(\d{6})\b/.exec(mail.text)![1];
    const stored = challenges.replace.mock.calls[0][0] as Record<string, unknown>;
    expect(JSON.stringify(stored)).not.toContain(pin);
    expect(stored.expiresAt).toEqual(new Date(clock.now().getTime() + 600_000));
  });

  it('withdraws the challenge when the mail cannot be sent', async () => {
    mailer.send.mockRejectedValue(new Error('smtp down'));
    const err = (await inRequest(() => service.requestPin({ username: 'jane@example.com', password: 'right' })).catch((e: unknown) => e)) as AppError;
    expect(err.status).toBe(503);
    expect(challenges.delete).toHaveBeenCalledWith('1');
  });

  it('refuses a resend held back by the cool-down with the seconds left', async () => {
    challenges.replace.mockResolvedValue(null);
    challenges.findByUser.mockResolvedValue({ sentAt: new Date(clock.now().getTime() - 12_000), consumedAt: null });
    const err = (await inRequest(() => service.requestPin({ username: 'jane@example.com', password: 'right' })).catch((e: unknown) => e)) as RetryLaterError;
    expect(err).toBeInstanceOf(RetryLaterError);
    expect(err.toBody()).toMatchObject({ status: 429, code: 'TOO_MANY_REQUESTS', retryAfter: 18 });
    expect(mailer.send).not.toHaveBeenCalled();
  });
});
