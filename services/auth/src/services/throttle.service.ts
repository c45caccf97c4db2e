import { Inject, Injectable } from '@nestjs/common';
import { AUTH_OPTIONS, type ResolvedAuthOptions } from '../auth.options';
import { Clock } from '../clock';
import type { LoginFailureScope } from '../entities';
import { RetryLaterError } from '../errors';
import { LoginFailureRepository } from '../repositories';
import { throttleWait, windowStart, type ThrottleRule } from '../rules/throttle-window';

/** An attempt counted by `ThrottleService.begin`, until it is known to be right. */
export interface AttemptTicket {
  ids: string[];
  email: string;
}

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

  /**
   * Starts a sign-in attempt: refused with 429 past a limit, otherwise counted as a failure at once, in the same
   * atomic step as the check (so N concurrent guesses cannot all pass a limit of fewer than N). The caller calls
   * `notAFailure` or `signedIn` when the attempt turns out right or was never judged (a bad captcha);
   * a wrong attempt needs nothing more: it is already counted.
   */
  async begin(email: string, ip: string | null): Promise<AttemptTicket> {
    const now = this.clock.now();
    const entry = (scope: LoginFailureScope, subject: string, rule: ThrottleRule) => ({
      scope,
      subject,
      since: windowStart(now, rule),
      limit: rule.limit,
      wait: (recent: Date[]) => throttleWait(recent, now, rule),
    });
    const entries = [entry('email', email, this.options.throttle.perEmail)];
    if (ip) entries.push(entry('ip', ip, this.options.throttle.perIp));
    const r = await this.failures.reserve(entries, now);
    if ('wait' in r) throw new RetryLaterError('too many failed sign-in attempts: try again later', r.wait);
    await this.pruneNowAndThen(now);
    return { ids: r.ids, email };
  }

  /** The attempt was right (a password before the PIN) or never judged (bad captcha): it is no failure. */
  async notAFailure(ticket: AttemptTicket): Promise<void> {
    await this.failures.release(ticket.ids, null);
  }

  /** A completed sign-in: the attempt is no failure and the email's earlier failures are forgiven (the IP's stay). */
  async signedIn(ticket: AttemptTicket): Promise<void> {
    await this.failures.release(ticket.ids, ticket.email);
  }

  /** A completed sign-in forgives the account's failures; the IP's stay counted. */
  async clearEmail(email: string): Promise<void> {
    await this.failures.clear('email', email);
  }

  private async pruneNowAndThen(now: Date): Promise<void> {
    if (now.getTime() - this.lastPrune < 60_000) return;
    this.lastPrune = now.getTime();
    const longest = Math.max(this.options.throttle.perEmail.windowSeconds, this.options.throttle.perIp.windowSeconds);
    await this.failures.pruneBefore(new Date(now.getTime() - longest * 1000));
  }
}
