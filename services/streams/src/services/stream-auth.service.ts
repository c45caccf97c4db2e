import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode } from '@switchboard/contracts';
import { AppError, RequestContext } from '@switchboard/platform';
import { Clock } from '../clock';
import { plainIp } from '../rules/ip-acl';
import { STREAMS_OPTIONS, type ResolvedStreamsOptions } from '../streams.options';
import { LookupsService, type ActiveStream } from './lookups.service';

const TOKEN_SHAPE = /^sbs_[A-Za-z0-9_-]{32}$/;
const FAILURE_WINDOW_MS = 60_000;

/** `Authorization: <token>`, `Bearer <token>` or `Token <token>`. */
export function streamTokenFrom(header: unknown): string | null {
  if (typeof header !== 'string') return null;
  const v = header.trim().replace(/^(Bearer|Token)\s+/i, '').trim();
  return v || null;
}

/**
 * Authenticates the stream API: the stream token (Authorization header) and the stream's IP ACL, against the
 * client address of the request context (the socket's, unless a trusted proxy is configured; never a raw
 * X-Forwarded-For). An address that keeps presenting invalid tokens is banned for a while (0x16).
 */
@Injectable()
export class StreamAuthService {
  private readonly failures = new Map<string, { count: number; since: number }>();
  private readonly banned = new Map<string, number>();

  constructor(
    private readonly lookups: LookupsService,
    private readonly clock: Clock,
    @Inject(STREAMS_OPTIONS) private readonly o: ResolvedStreamsOptions,
  ) {}

  async authenticate(authorization: unknown): Promise<ActiveStream> {
    const rawIp = RequestContext.current()?.ip ?? null;
    const ip = rawIp ? plainIp(rawIp) : null;
    const now = this.clock.now().getTime();
    if (ip && this.isBanned(ip, now)) throw new AppError(403, ErrorCode.BannedIp, 'this address is banned after repeated invalid stream tokens');
    const token = streamTokenFrom(authorization);
    if (!token) throw new AppError(401, ErrorCode.MissingToken, 'missing stream token: send it in the Authorization header');
    let stream: ActiveStream | null = null;
    if (TOKEN_SHAPE.test(token)) {
      // no await when cached: every await of the send path costs the request context's promise hooks
      const cached = this.lookups.cachedStreamByToken(token);
      stream = cached !== undefined ? cached : await this.lookups.streamByToken(token);
    }
    if (!stream) {
      if (ip) this.recordFailure(ip, now);
      throw new AppError(401, ErrorCode.InvalidToken, 'invalid stream token');
    }
    if (stream.checkIpAcl && !stream.acl.allows(ip)) {
      throw new AppError(403, ErrorCode.IpAclRestriction, `address ${ip ?? 'unknown'} is not allowed by the stream's IP ACL`);
    }
    const ctx = RequestContext.current();
    if (ctx) {
      RequestContext.setPrincipal({ kind: 'streamToken', userId: null, email: null, accountId: stream.accountId, permissions: [], roles: [], superAdmin: false });
    }
    return stream;
  }

  private isBanned(ip: string, now: number): boolean {
    const until = this.banned.get(ip);
    if (until === undefined) return false;
    if (until > now) return true;
    this.banned.delete(ip);
    return false;
  }

  private recordFailure(ip: string, now: number): void {
    let f = this.failures.get(ip);
    if (!f || now - f.since > FAILURE_WINDOW_MS) {
      if (this.failures.size > 100_000) this.failures.clear();
      f = { count: 0, since: now };
      this.failures.set(ip, f);
    }
    f.count++;
    if (f.count >= this.o.invalidTokenLimit) {
      this.failures.delete(ip);
      this.banned.set(ip, now + this.o.banSeconds * 1000);
    }
  }
}
