import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  ErrorCode,
  SessionRevocationReason,
  SessionRevokedV1,
  UserAccessRevokedV1,
  type AccessRevocationReasonValue,
  type SessionRevocationReasonValue,
} from '@switchboard/contracts';
import { AppError, TokenSigner, type Principal } from '@switchboard/platform';
import { AUTH_OPTIONS, type ResolvedAuthOptions } from '../auth.options';
import { Clock } from '../clock';
import type { ApiKeyEntity, SessionFamilyEntity, UserEntity } from '../entities';
import { invalidRefreshToken } from '../errors';
import { SessionRepository, UserRepository } from '../repositories';
import { AccessService } from './access.service';
import { API_KEY_ROLE, API_KEY_SUBJECT_PREFIX, REALTIME_ROLE } from '../rules/principals';
import { AuthUnitOfWork, type Emit } from './auth-events.service';

export interface TokenPair {
  token: string;
  refresh_token: string;
}

type RefreshOutcome = { pair: TokenPair } | { refused: 'unknown' | 'revoked' | 'reused' | 'expired' };

const REFUSALS = {
  unknown: 'invalid refresh token',
  revoked: 'this session has ended',
  reused: 'refresh token already used: the session has been ended',
  expired: 'refresh token expired',
} as const;

export type Grant = Pick<SessionFamilyEntity, 'id' | 'impersonatorId' | 'grantAccountId' | 'grantPermissions'>;

/**
 * A login-as family stays in the account it was opened for (spec: denied access otherwise); so does a single sign-on
 * family (a grant account without an impersonator, docs/decisions/0042): its provider identity maps to that account only.
 */
function assertWithinGrant(family: Grant, accountId: string | null): void {
  if ((family.impersonatorId || family.grantAccountId) && accountId !== family.grantAccountId) {
    throw AppError.forbidden(
      family.impersonatorId ? 'a login-as session stays in the account it was opened for: exit it first' : 'a single sign-on session stays in the account its identity is mapped to',
      ErrorCode.AccessDenied,
    );
  }
}

/** `auth.user.access_revoked`: see TokenService.revokeAccess. */
export function emitAccessRevoked(emit: Emit, userId: string, accountId: string | null, reason: AccessRevocationReasonValue): void {
  // wall-clock time, like the `iat` the signer writes (not the injectable clock)
  emit(UserAccessRevokedV1, { userId, accountId, notBefore: new Date().toISOString(), reason }, accountId);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const hashRefreshToken = (raw: string): string => createHash('sha256').update(raw, 'utf8').digest('hex');

/**
 * Access tokens (ES256 JWT, short-lived) and refresh tokens (opaque, stored as SHA-256, single use, rotated within a
 * session family). Presenting a used refresh token again is treated as theft: the whole family is revoked.
 */
@Injectable()
export class TokenService {
  private readonly signer: TokenSigner;

  constructor(
    @Inject(AUTH_OPTIONS) private readonly options: ResolvedAuthOptions,
    private readonly sessions: SessionRepository,
    private readonly users: UserRepository,
    private readonly access: AccessService,
    private readonly uow: AuthUnitOfWork,
    private readonly clock: Clock,
  ) {
    this.signer = new TokenSigner(options.privateKey, options.issuer);
  }

  /**
   * A new session family for a signed-in user, opened in `accountId`. A login-as session (`impersonatorId`) records
   * its grant: the account and the permissions the user had there when it was opened. Every later token of the
   * family is checked against it (`issue`).
   */
  async startSession(
    m: EntityManager,
    user: UserEntity,
    accountId: string | null,
    impersonatorId: string | null = null,
    /** Single sign-on: the family never leaves `accountId` and never carries super administrator rights. */
    lockedToAccount = false,
  ): Promise<{ pair: TokenPair; familyId: string; accountId: string | null }> {
    const family: Grant = { id: randomUUID(), impersonatorId, grantAccountId: lockedToAccount ? accountId : null, grantPermissions: null };
    if (lockedToAccount && (!accountId || impersonatorId)) throw AppError.forbidden('a single sign-on session needs an account', ErrorCode.AccessDenied);
    if (impersonatorId) {
      const snap = await this.access.snapshot(user, accountId, m);
      if (!snap.accountId) throw AppError.forbidden('a login-as session needs an account', ErrorCode.AccessDenied);
      family.grantAccountId = snap.accountId;
      family.grantPermissions = snap.permissions;
    }
    await this.sessions.createFamily({ ...family, userId: user.id, createdAt: this.clock.now() }, m);
    const issued = await this.issue(m, user, family, accountId);
    return { ...issued, familyId: family.id };
  }

  /**
   * A new pair in the same family for another account (account switch). The family's unused refresh tokens are
   * retired first, so exactly one refresh token of a family is alive; presenting a retired one counts as reuse.
   * A login-as family cannot switch: it stays in the account it was opened for.
   */
  async reissue(m: EntityManager, user: UserEntity, familyId: string, accountId: string): Promise<TokenPair> {
    const family = await this.sessions.lockFamily(familyId, m);
    if (!family || family.revokedAt || family.userId !== user.id) throw invalidRefreshToken('this session has ended');
    assertWithinGrant(family, accountId);
    await this.sessions.retireUnused(familyId, this.clock.now(), m);
    return (await this.issue(m, user, family, accountId)).pair;
  }

  /** POST /token_refresh: rotates a refresh token. */
  async refresh(raw: string): Promise<TokenPair> {
    const outcome = await this.uow.run(async (m, emit): Promise<RefreshOutcome> => {
      const found = await this.sessions.findTokenByHash(hashRefreshToken(raw), m);
      if (!found) return { refused: 'unknown' };
      const family = await this.sessions.lockFamily(found.familyId, m);
      const token = await this.sessions.lockToken(found.id, m);
      if (!family || !token || family.revokedAt) return { refused: 'revoked' };
      const now = this.clock.now();
      if (token.usedAt) {
        // committed even though the caller gets a 401: the revocation is the point
        await this.sessions.revokeFamily(family.id, SessionRevocationReason.Reuse, now, m);
        emit(SessionRevokedV1, { familyId: family.id, userId: family.userId, reason: SessionRevocationReason.Reuse }, token.accountId);
        return { refused: 'reused' };
      }
      if (token.expiresAt.getTime() <= now.getTime()) return { refused: 'expired' };
      const user = await this.users.findById(family.userId, m);
      if (!user || !user.active) return { refused: 'revoked' };
      await this.sessions.markUsed(token.id, now, m);
      if ((family.impersonatorId || family.grantAccountId) && token.accountId !== family.grantAccountId) return { refused: 'revoked' };
      return { pair: (await this.issue(m, user, family, token.accountId)).pair };
    });
    if ('refused' in outcome) throw invalidRefreshToken(REFUSALS[outcome.refused]);
    return outcome.pair;
  }

  /** POST /logout: ends the caller's own session (`sid`); an API-key token has no session to end. Idempotent. */
  async signOut(p: Principal): Promise<void> {
    const sid = p.sessionId;
    if (p.kind !== 'user' || !p.userId || !sid || !UUID.test(sid)) return;
    await this.uow.run(async (m, emit) => {
      const family = await this.sessions.lockFamily(sid, m);
      if (!family || family.revokedAt || family.userId !== p.userId) return;
      await this.sessions.revokeFamily(family.id, SessionRevocationReason.Logout, this.clock.now(), m);
      emit(SessionRevokedV1, { familyId: family.id, userId: family.userId, reason: SessionRevocationReason.Logout }, p.accountId);
    });
  }

  /**
   * Ends sessions of a user (all of them, or those in one account) and emits `auth.session.revoked` for each: their
   * refresh tokens stop at once, their access tokens lapse within their lifetime.
   */
  async revokeSessions(m: EntityManager, emit: Emit, userId: string, reason: SessionRevocationReasonValue, accountId?: string): Promise<string[]> {
    const now = this.clock.now();
    const ended = accountId ? await this.sessions.revokeInAccount(userId, accountId, reason, now, m) : await this.sessions.revokeAllOfUser(userId, reason, now, m);
    for (const f of ended) emit(SessionRevokedV1, { familyId: f.familyId, userId: f.userId, reason }, f.accountId);
    return ended.map((f) => f.familyId);
  }

  /**
   * Every service refuses the user's access tokens issued before now: in `accountId` only (roles changed, disabled
   * in or removed from the account), or everywhere when null. Their sessions go on: a refresh carries what holds now.
   */
  revokeAccess(emit: Emit, userId: string, accountId: string | null, reason: AccessRevocationReasonValue): void {
    emitAccessRevoked(emit, userId, accountId, reason);
  }

  /**
   * The live-channel token of GET /users/async: the caller's account and nothing else (no permissions, no session,
   * not a super admin), short-lived. Enough for the gateway's /realtime, refused by everything that needs a session.
   */
  signRealtime(user: UserEntity, accountId: string, impersonatorId: string | null, sessionId?: string): { token: string; expiresIn: number } {
    const ttl = this.options.realtimeTokenTtlSeconds;
    // The caller's session id, so the gateway closes the live channel when that session is revoked.
    const token = this.signer.signAccess(
      { sub: user.id, email: user.email, acc: accountId, perms: [], roles: [REALTIME_ROLE], sa: false, sid: sessionId ?? randomUUID(), imp: impersonatorId },
      ttl,
    );
    return { token, expiresIn: ttl };
  }

  /** The short-lived access token an API key is exchanged for: the key's account and permissions, `kind: apiKey`. */
  signApiKey(key: ApiKeyEntity): { token: string; expiresIn: number } {
    const ttl = this.options.apiKeyTokenTtlSeconds;
    const claims = {
      sub: `${API_KEY_SUBJECT_PREFIX}${key.id}`,
      email: '',
      acc: key.accountId,
      perms: [...key.permissions],
      roles: [API_KEY_ROLE],
      sa: false,
      sid: randomUUID(),
      imp: null,
      kind: 'apiKey' as const,
    };
    return { token: this.signer.signAccess(claims, ttl), expiresIn: ttl };
  }

  /**
   * Signs the pair. For a login-as family the account must be the granted one, the permissions are those of today
   * narrowed to the grant, and never a super administrator's: a reissue or refresh never widens the original grant.
   */
  private async issue(m: EntityManager, user: UserEntity, family: Grant, accountId: string | null): Promise<{ pair: TokenPair; accountId: string | null }> {
    const familyId = family.id;
    const impersonatorId = family.impersonatorId;
    assertWithinGrant(family, accountId);
    // a single sign-on family: never a super administrator's rights (approval refuses them; this holds if one is made later)
    if (family.grantAccountId && !impersonatorId && user.superAdmin) throw invalidRefreshToken('a single sign-on session cannot carry super administrator rights');
    const snap = await this.access.snapshot(user, accountId, m);
    if (impersonatorId) {
      const granted = new Set(family.grantPermissions ?? []);
      snap.permissions = snap.permissions.filter((p) => granted.has(p));
      snap.superAdmin = false;
    }
    const now = this.clock.now();
    const refresh = randomBytes(32).toString('base64url');
    await this.sessions.insertToken(
      {
        familyId,
        tokenHash: hashRefreshToken(refresh),
        accountId: snap.accountId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + this.options.refreshTokenTtlSeconds * 1000),
      },
      m,
    );
    const token = this.signer.signAccess(
      {
        sub: user.id,
        email: user.email,
        acc: snap.accountId,
        perms: snap.permissions,
        roles: snap.roles,
        sa: snap.superAdmin,
        sid: familyId,
        imp: impersonatorId,
      },
      this.options.accessTokenTtlSeconds,
    );
    return { pair: { token, refresh_token: refresh }, accountId: snap.accountId };
  }
}
