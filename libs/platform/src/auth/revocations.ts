import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { z } from 'zod';
import { ApiKeyDeletedV1, ApiKeyRevokedV1, ErrorCode, SessionRevokedV1, Topics, UserAccessRevokedV1, type EventEnvelope, type RealtimeMessage } from '@switchboard/contracts';
import type { EventBus } from '../bus/event-bus';
import { AppError } from '../errors/app-error';
import type { RealtimeFanout } from '../realtime/realtime';

/**
 * The longest lifetime of an access token any service accepts (auth's default and documented ceiling, 15 min): a
 * revocation older than this can only concern expired tokens, so it is forgotten (memory stays bounded).
 */
export const MAX_ACCESS_TOKEN_LIFETIME_MS = 15 * 60_000;

/** Where auth mirrors revocations on the realtime fan-out, for processes without an event bus (the gateway). */
export const REVOCATION_SUBJECT = 'sys.revocations';

export const REVOCATION_EVENT_TYPES: readonly string[] = Object.freeze([SessionRevokedV1.type, UserAccessRevokedV1.type, ApiKeyDeletedV1.type, ApiKeyRevokedV1.type]);

/** `sub` of the tokens an API key is exchanged for. */
export const apiKeySubject = (apiKeyId: string): string => `apikey:${apiKeyId}`;

/** What a deny-list check needs from a verified access token. */
export interface RevocableClaims {
  sub: string;
  acc: string | null;
  sid: string;
  /** Issue time in epoch seconds, with millisecond precision for tokens signed by this platform. */
  iat: number;
}

/** One revocation as the list stores and announces it. */
export type Revocation =
  | { kind: 'session'; sid: string; at: number }
  /** Tokens of `sub` (in `accountId` only, or everywhere when null) issued before `notBefore` (ms). */
  | { kind: 'subject'; sub: string; accountId: string | null; notBefore: number };

interface SubjectEntry {
  notBefore: number;
  expiresAt: number;
}

const ANY_ACCOUNT = '*';

/**
 * The deny list every service's access guard consults (docs/decisions/0029): revoked sessions (by `sid`) and
 * subjects revoked from a time on (a user in one account or everywhere, an API key). Fed by auth's revocation events;
 * entries live for the longest access-token lifetime after the revocation, then are pruned.
 */
export class RevocationList {
  private readonly sessions = new Map<string, number>();
  private readonly subjects = new Map<string, SubjectEntry>();
  private readonly listeners = new Set<(r: Revocation) => void>();
  private applied = 0;

  constructor(
    private readonly lifetimeMs = MAX_ACCESS_TOKEN_LIFETIME_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Applies a revocation; answers false (and changes nothing) when it is too old to concern a live token. */
  apply(r: Revocation): boolean {
    const at = r.kind === 'session' ? r.at : r.notBefore;
    const expiresAt = at + this.lifetimeMs;
    if (!Number.isFinite(at) || expiresAt <= this.now()) return false;
    if (++this.applied % 256 === 0) this.prune();
    if (r.kind === 'session') {
      this.sessions.set(r.sid, Math.max(this.sessions.get(r.sid) ?? 0, expiresAt));
    } else {
      const key = `${r.sub}|${r.accountId ?? ANY_ACCOUNT}`;
      const current = this.subjects.get(key);
      if (current && current.notBefore >= r.notBefore) return true;
      this.subjects.set(key, { notBefore: r.notBefore, expiresAt });
    }
    for (const l of this.listeners) l(r);
    return true;
  }

  /** Why the token is refused, or null when it is not revoked. */
  reason(c: RevocableClaims): string | null {
    if (this.sessions.has(c.sid)) return 'this session has been revoked';
    const issuedMs = c.iat * 1000;
    for (const key of [`${c.sub}|${ANY_ACCOUNT}`, c.acc ? `${c.sub}|${c.acc}` : null]) {
      const e = key ? this.subjects.get(key) : undefined;
      if (e && issuedMs < e.notBefore) return 'this token has been revoked: sign in again';
    }
    return null;
  }

  /** 401 INVALID_JWT (0x14) for a revoked token, like an expired one: the client refreshes or signs in again. */
  assertNotRevoked(c: RevocableClaims): void {
    const why = this.reason(c);
    if (why) throw AppError.unauthorized(why, ErrorCode.InvalidJwt);
  }

  /** Whether a revocation concerns the token (for closing open connections). */
  static concerns(r: Revocation, c: RevocableClaims): boolean {
    if (r.kind === 'session') return r.sid === c.sid;
    return r.sub === c.sub && (r.accountId === null || r.accountId === c.acc) && c.iat * 1000 < r.notBefore;
  }

  /** Called with every revocation applied from now on; returns the unsubscribe function. */
  onRevoked(listener: (r: Revocation) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  prune(): void {
    const now = this.now();
    for (const [k, exp] of this.sessions) if (exp <= now) this.sessions.delete(k);
    for (const [k, e] of this.subjects) if (e.expiresAt <= now) this.subjects.delete(k);
  }

  get size(): number {
    return this.sessions.size + this.subjects.size;
  }
}

const ms = (iso: string): number => new Date(iso).getTime();

/** The revocation an auth event stands for, or null for any other event (or a malformed one: never retried). */
export function revocationFromEvent(event: Pick<EventEnvelope, 'type' | 'version' | 'occurredAt' | 'data'>): Revocation | null {
  if (event.version !== 1) return null;
  switch (event.type) {
    case SessionRevokedV1.type: {
      const d = SessionRevokedV1.schema.safeParse(event.data);
      return d.success ? { kind: 'session', sid: d.data.familyId, at: ms(event.occurredAt) } : null;
    }
    case UserAccessRevokedV1.type: {
      const d = UserAccessRevokedV1.schema.safeParse(event.data);
      return d.success ? { kind: 'subject', sub: d.data.userId, accountId: d.data.accountId, notBefore: ms(d.data.notBefore) } : null;
    }
    case ApiKeyDeletedV1.type: {
      const d = ApiKeyDeletedV1.schema.safeParse(event.data);
      return d.success ? { kind: 'subject', sub: apiKeySubject(d.data.apiKeyId), accountId: null, notBefore: ms(d.data.deletedAt) } : null;
    }
    case ApiKeyRevokedV1.type: {
      const d = ApiKeyRevokedV1.schema.safeParse(event.data);
      return d.success ? { kind: 'subject', sub: apiKeySubject(d.data.apiKeyId), accountId: null, notBefore: ms(d.data.notBefore) } : null;
    }
    default:
      return null;
  }
}

/**
 * Feeds `list` from the auth topic. Every process needs every revocation, so the group is unique per process AND per
 * boot (`<process>.revocations.<host>.<random>`): a new group starts at the oldest retained event (the Kafka bus
 * reads new groups from the beginning), so a restarted process reloads every revocation still within a token's
 * lifetime (the auth topic's retention must exceed 15 minutes). Register before the bus starts.
 */
export async function registerRevocationConsumer(bus: EventBus, list: RevocationList, processName: string): Promise<string> {
  const group = `${processName}.revocations.${hostname()}.${randomUUID().slice(0, 8)}`;
  await bus.subscribe({
    group,
    topics: [Topics.Auth],
    types: [...REVOCATION_EVENT_TYPES],
    handler: async (event) => {
      const r = revocationFromEvent(event);
      if (r) list.apply(r);
    },
  });
  return group;
}

const realtimeRevocation = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('session'), sid: z.string().min(1), at: z.number() }),
  z.object({ kind: z.literal('subject'), sub: z.string().min(1), accountId: z.string().nullable(), notBefore: z.number() }),
]);

/** Auth's side of the realtime mirror: republishes a revocation event on `sys.revocations`. */
export async function publishRevocation(realtime: RealtimeFanout, event: Pick<EventEnvelope, 'type' | 'version' | 'occurredAt' | 'data'>): Promise<void> {
  const r = revocationFromEvent(event);
  if (!r) return;
  await realtime.publish(REVOCATION_SUBJECT, { accountId: 'sys', topic: 'revocations', type: event.type, data: r });
}

/**
 * Feeds `list` from the realtime mirror (the gateway, which has no event bus). Best effort like all realtime: the
 * services behind the gateway refuse revoked tokens from their own, durable, feed.
 */
export async function followRealtimeRevocations(realtime: RealtimeFanout, list: RevocationList): Promise<() => Promise<void>> {
  return realtime.subscribe(REVOCATION_SUBJECT, (m: RealtimeMessage) => {
    const r = realtimeRevocation.safeParse(m.data);
    if (r.success) list.apply(r.data);
  });
}
