import { Inject, Injectable } from '@nestjs/common';
import { AUTH_OPTIONS, type ResolvedAuthOptions } from '../auth.options';
import { Clock } from '../clock';
import type { LoginFailureScope } from '../entities';
import { RetryLaterError } from '../errors';
import { LoginFailureRepository } from '../repositories';
import { throttleWait, windowStart, type ThrottleRule } from '../rules/throttle-window';

/**
 * Failed sign-ins (wrong password or PIN) are counted per email and per client IP in the database, so every process
 * sees them. Past the limit, attempts are refused with 429 until the window lets them through again.
 */
@Injectable()
export class ThrottleService {
  private lastPrune = 0;

  constructor(
    @Inject(AUTH_OPTIONS) private readonly options: ResolvedAuthOptions,
    private readonly failures: LoginFailureRepository,
    private readonly clock: Clock,
  ) {}

  async assertAllowed(email: string, ip: string | null): Promise<void> {
    const now = this.clock.now();
    const waits = await Promise.all([
      this.wait('email', email, this.options.throttle.perEmail, now),
      ip ? this.wait('ip', ip, this.options.throttle.perIp, now) : Promise.resolve(0),
    ]);
    const wait = Math.max(...waits);
    if (wait > 0) throw new RetryLaterError('too many failed sign-in attempts: try again later', wait);
  }

  async recordFailure(email: string, ip: string | null): Promise<void> {
    const now = this.clock.now();
    const entries: Array<{ scope: LoginFailureScope; subject: string }> = [{ scope: 'email', subject: email }];
    if (ip) entries.push({ scope: 'ip', subject: ip });
    await this.failures.record(entries, now);
    await this.pruneNowAndThen(now);
  }

  /** A completed sign-in forgives the account's failures; the IP's stay counted. */
  async clearEmail(email: string): Promise<void> {
    await this.failures.clear('email', email);
  }

  private async wait(scope: LoginFailureScope, subject: string, rule: ThrottleRule, now: Date): Promise<number> {
    const recent = await this.failures.recent(scope, subject, windowStart(now, rule), rule.limit);
    return throttleWait(recent, now, rule);
  }

  private async pruneNowAndThen(now: Date): Promise<void> {
    if (now.getTime() - this.lastPrune < 60_000) return;
    this.lastPrune = now.getTime();
    const longest = Math.max(this.options.throttle.perEmail.windowSeconds, this.options.throttle.perIp.windowSeconds);
    await this.failures.pruneBefore(new Date(now.getTime() - longest * 1000));
  }
}
