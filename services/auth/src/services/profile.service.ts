import { Inject, Injectable } from '@nestjs/common';
import { AccountSwitchedV1, ErrorCode, type Violation } from '@switchboard/contracts';
import { AppError, type Principal } from '@switchboard/platform';
import { AUTH_OPTIONS, type ResolvedAuthOptions } from '../auth.options';
import { Clock } from '../clock';
import { isApiKeyPrincipal, isRealtimePrincipal } from '../rules/principals';
import type { AccountEntity, UserEntity } from '../entities';
import { UserRepository, type UserPatch } from '../repositories';
import { validatePreferences } from '../rules/preferences';
import { AccessService } from './access.service';
import { AuthUnitOfWork } from './auth-events.service';
import { TokenService, type TokenPair } from './token.service';

export interface AccountSummaryDto {
  id: number;
  name: string;
  shortName: string;
  status: string;
  /** 1 when the account can be worked in (not disabled or deleted), else 0 (spec 3: active 0/1). */
  active: 0 | 1;
}

export interface CurrentAccountDto extends AccountSummaryDto {
  currency: string;
}

/** GET /users/connected (spec 3, User / profile). */
export interface ProfileDto {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  timezone: string;
  /** The preferences object as a JSON string. */
  preferences: string;
  roles: string[];
  userPermissions: string[];
  intercomToken: null;
  customer: CurrentAccountDto | null;
  customers: AccountSummaryDto[];
}

export interface LiveChannelDto {
  /** Where to open the server-sent event stream (the gateway's /realtime, same origin by default). */
  url: string;
  /** Bearer token for it (or `access_token` in the query, since EventSource cannot set headers). */
  token: string;
  expires_in: number;
  accountId: number;
}

export interface ProfileUpdate {
  firstName?: string;
  lastName?: string;
  timezone?: string | null;
  preferences?: unknown;
  customer?: unknown;
}

const summary = (a: AccountEntity): AccountSummaryDto => ({
  id: Number(a.id),
  name: a.name,
  shortName: a.shortName,
  status: a.status,
  active: a.status === 'disable' || a.status === 'delete' ? 0 : 1,
});

/** `customer` as sent by the console: an id (number or digits) or an IRI `/api/customers/{id}`. */
export function parseAccountRef(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return String(v);
  if (typeof v === 'string') {
    const m = /^(?:\/api\/customers\/)?([1-9]\d{0,17})$/.exec(v.trim());
    if (m) return m[1];
  }
  return null;
}

@Injectable()
export class ProfileService {
  constructor(
    @Inject(AUTH_OPTIONS) private readonly options: ResolvedAuthOptions,
    private readonly users: UserRepository,
    private readonly access: AccessService,
    private readonly tokens: TokenService,
    private readonly uow: AuthUnitOfWork,
    private readonly clock: Clock,
  ) {}

  async connected(principal: Principal): Promise<ProfileDto> {
    return this.profile(await this.currentUser(principal, true), principal.accountId);
  }

  /**
   * GET /users/async: credentials for the live channel (spec 7): where it is and a short-lived token that opens it
   * for the current account and opens nothing else.
   */
  async liveChannel(principal: Principal): Promise<LiveChannelDto> {
    const user = await this.currentUser(principal, true);
    const snap = await this.access.snapshot(user, principal.accountId);
    if (!snap.accountId) throw AppError.forbidden('no account selected', ErrorCode.AccessDenied);
    const { token, expiresIn } = this.tokens.signRealtime(user, snap.accountId, principal.impersonatorId ?? null, principal.sessionId);
    return { url: this.options.realtimeUrl, token, expires_in: expiresIn, accountId: Number(snap.accountId) };
  }

  /**
   * PUT /users/connected_update. Everything is validated before anything is written: a bad field is a 400 with
   * violations and nothing changes. `customer` switches the session's account and answers new tokens for it.
   */
  async update(principal: Principal, sessionId: string | null, u: ProfileUpdate): Promise<ProfileDto & Partial<TokenPair>> {
    const user = await this.currentUser(principal);
    const violations: Violation[] = [];
    const patch: UserPatch = {};
    if (u.firstName !== undefined) patch.firstName = u.firstName.trim();
    if (u.lastName !== undefined) patch.lastName = u.lastName.trim();
    if (u.timezone !== undefined) patch.timezone = u.timezone === null || u.timezone.trim() === '' ? null : u.timezone.trim();
    if (u.preferences !== undefined) {
      const r = validatePreferences(u.preferences);
      violations.push(...r.violations);
      patch.preferences = r.value;
    }
    let accountId: string | null = null;
    if (u.customer !== undefined) {
      accountId = parseAccountRef(u.customer);
      if (!accountId) violations.push({ propertyPath: 'customer', message: 'must be an account id or /api/customers/{id}', code: 'invalidAccount' });
    }
    if (violations.length) throw AppError.validation(violations);
    if (accountId && !sessionId) throw AppError.unauthorized('this token has no session to switch');
    if (accountId && principal.impersonatorId && accountId !== principal.accountId) {
      throw AppError.forbidden('a login-as session stays in the account it was opened for: exit it first', ErrorCode.AccessDenied);
    }
    const target = accountId ? await this.access.enterableAccount(user, accountId) : null;

    const pair = await this.uow.run(async (m, emit) => {
      if (Object.keys(patch).length) await this.users.update(user.id, { ...patch, updatedAt: this.clock.now() }, m);
      if (!target || !sessionId) return null;
      const issued = await this.tokens.reissue(m, user, sessionId, target.id);
      emit(AccountSwitchedV1, { familyId: sessionId, userId: user.id, accountId: target.id }, target.id);
      return issued;
    });
    const fresh = (await this.users.findById(user.id)) as UserEntity;
    const profile = await this.profile(fresh, target ? target.id : principal.accountId);
    return pair ? { ...profile, ...pair } : profile;
  }

  /** The signed-in user; a live-channel token may read, never write. API keys are no user. */
  private async currentUser(principal: Principal, readOnly = false): Promise<UserEntity> {
    if (isApiKeyPrincipal(principal) || (!readOnly && isRealtimePrincipal(principal))) throw AppError.forbidden('this call needs a user session', ErrorCode.AccessDenied);
    const user = principal.userId && /^\d{1,19}$/.test(principal.userId) ? await this.users.findById(principal.userId) : null;
    if (!user || !user.active) throw AppError.unauthorized('this user can no longer sign in');
    return user;
  }

  private async profile(user: UserEntity, accountId: string | null): Promise<ProfileDto> {
    const snap = await this.access.snapshot(user, accountId);
    const visible = await this.access.visibleAccounts(user);
    const current = snap.accountId ? (visible.find((a) => a.id === snap.accountId) ?? null) : null;
    return {
      id: Number(user.id),
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      timezone: user.timezone ?? '',
      preferences: JSON.stringify(user.preferences ?? {}),
      roles: snap.roles,
      userPermissions: snap.permissions,
      intercomToken: null,
      customer: current ? { ...summary(current), currency: current.currency } : null,
      customers: visible.map(summary),
    };
  }
}
