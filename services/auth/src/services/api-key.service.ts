import { Injectable } from '@nestjs/common';
import { ApiKeyDeletedV1, ApiKeyRevokedV1, ErrorCode, isPermission, Permission, type Violation } from '@switchboard/contracts';
import { AppError, parseListQuery, RequestContext, type ListResult, type Principal } from '@switchboard/platform';
import { Clock } from '../clock';
import { AuditAction, type AccountEntity, type ApiKeyEntity } from '../entities';
import { AccountRepository, ApiKeyRepository, AuditLogRepository, type ApiKeyPatch } from '../repositories';
import { formatIpAcl, ipAllowed, parseIpAcl } from '../rules/ip-acl';
import { newSecret, sha256Hex } from '../rules/secrets';
import { hasForbiddenCharacters, XSS_MESSAGE } from '../rules/text';
import { normalizeIp } from '../rules/throttle-window';
import { ActorService, type Actor } from './actor.service';
import { AuthUnitOfWork } from './auth-events.service';
import { TeamNotifier } from './team-notifier.service';
import { TokenService } from './token.service';
import type { ApiKeyDto } from '@switchboard/contracts';

export type { ApiKeyDto };

/** `sk_` + 43 URL-safe characters (256 bits). */
export const API_KEY_PREFIX = 'sk_';
const KEY_SHAPE = /^sk_[A-Za-z0-9_-]{43}$/;


export interface ApiKeyInput {
  name?: string;
  ipAcl?: unknown;
  active?: unknown;
  permissions?: string[];
}

export interface ApiKeyTokenDto {
  token: string;
  token_type: 'Bearer';
  expires_in: number;
}

/**
 * Permissions an API key never carries: keys act on the public API (streams, campaigns, contacts, ...), never on
 * who may do what (team, roles, keys) in the account.
 */
export const API_KEY_FORBIDDEN_PERMISSIONS: ReadonlySet<string> = new Set([
  Permission.ApiKeyAdd,
  Permission.ApiKeyView,
  Permission.ApiKeyEdit,
  Permission.ApiKeyDelete,
  Permission.UserInviteView,
  Permission.UserInviteAdd,
  Permission.UserInviteEdit,
  Permission.UserInviteDelete,
  Permission.UserRoleView,
  Permission.UserRoleAdd,
  Permission.UserRoleEdit,
  Permission.UserRoleDelete,
  Permission.TenantOwner,
]);

const toDto = (k: ApiKeyEntity, plain?: string): ApiKeyDto => ({
  id: Number(k.id),
  name: k.name,
  apiKey: plain ?? `${k.keyPrefix}…`,
  ipAcl: formatIpAcl(k.ipAcl),
  permissions: [...k.permissions],
  active: k.active ? 1 : 0,
  createdAt: k.createdAt.toISOString(),
  lastUsedAt: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
});

/** `customSettings.allow_api_keys` of spec 3: only an explicit "no" (false, 0, "0") turns keys off. */
export const apiKeysAllowed = (account: Pick<AccountEntity, 'customSettings'>): boolean => {
  const v = account.customSettings?.allow_api_keys;
  return !(v === false || v === 0 || v === '0' || v === 'false');
};

function parseActive(v: unknown): boolean | null {
  if (v === 1 || v === true || v === '1') return true;
  if (v === 0 || v === false || v === '0') return false;
  return null;
}

/**
 * API keys: stored as SHA-256 (the key is 256 random bits, so a slow hash adds nothing), shown once. A key is
 * exchanged for a short-lived access token (POST /api_keys/token) that every service verifies like any other
 * token; the IP ACL is checked at the exchange against the client address as the HTTP layer sees it, which
 * ignores X-Forwarded-For unless a trusted proxy is configured.
 */
@Injectable()
export class ApiKeyService {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly accounts: AccountRepository,
    private readonly audit: AuditLogRepository,
    private readonly actors: ActorService,
    private readonly tokens: TokenService,
    private readonly notifier: TeamNotifier,
    private readonly uow: AuthUnitOfWork,
    private readonly clock: Clock,
  ) {}

  async list(p: Principal, query: Record<string, unknown>): Promise<ListResult<ApiKeyDto>> {
    const actor = await this.actors.resolve(p);
    const q = parseListQuery(query, { sortable: ['id', 'name', 'createdAt'], defaultItemsPerPage: 500 });
    const [rows, total] = await this.keys.list(actor.accountId, q);
    return { items: rows.map((k) => toDto(k)), total };
  }

  async get(p: Principal, id: string): Promise<ApiKeyDto> {
    const actor = await this.actors.resolve(p);
    return toDto(await this.find(actor, id));
  }

  async create(p: Principal, input: ApiKeyInput & { name: string }): Promise<ApiKeyDto> {
    const actor = await this.actors.resolve(p);
    await this.assertAllowed(actor);
    const v = this.validate(input, true);
    this.actors.assertCanGrant(actor, v.permissions ?? [], 'create an API key');
    const plain = `${API_KEY_PREFIX}${newSecret()}`;
    const now = this.clock.now();
    const key = await this.uow.run(async (m) => {
      const created = await this.keys.insert(
        {
          accountId: actor.accountId,
          name: v.name as string,
          keyPrefix: plain.slice(0, 9),
          keyHash: sha256Hex(plain),
          ipAcl: v.ipAcl ?? [],
          permissions: v.permissions ?? [],
          active: v.active ?? true,
          createdBy: actor.userId,
          createdAt: now,
          updatedAt: now,
        },
        m,
      );
      await this.record(m, actor, AuditAction.ApiKeyCreated, created.id);
      return created;
    });
    await this.notifier.changed(actor.accountId, 'api_keys.changed', { apiKeyId: key.id });
    return toDto(key, plain);
  }

  /** PUT /api_keys/{id}: name, IP ACL, active, permissions. Nobody widens a key beyond their own permissions. */
  async update(p: Principal, id: string, input: ApiKeyInput): Promise<ApiKeyDto> {
    const actor = await this.actors.resolve(p);
    const key = await this.find(actor, id);
    const v = this.validate(input, false);
    this.actors.assertCanGrant(actor, key.permissions, 'change an API key');
    if (v.permissions) this.actors.assertCanGrant(actor, v.permissions, 'give an API key');
    const patch: ApiKeyPatch = { updatedAt: this.clock.now() };
    if (v.name !== undefined) patch.name = v.name;
    if (v.ipAcl !== undefined) patch.ipAcl = v.ipAcl;
    if (v.permissions !== undefined) patch.permissions = v.permissions;
    if (v.active !== undefined) patch.active = v.active;
    // tokens exchanged before a deactivation or a permission change are refused at once (docs/decisions/0029)
    const reason =
      v.active === false && key.active
        ? ('deactivated' as const)
        : v.permissions !== undefined && !samePermissions(v.permissions, key.permissions)
          ? ('permissions_changed' as const)
          : null;
    await this.uow.run(async (m, emit) => {
      await this.keys.update(actor.accountId, key.id, patch, m);
      if (reason) emit(ApiKeyRevokedV1, { apiKeyId: key.id, accountId: actor.accountId, notBefore: new Date().toISOString(), reason }, actor.accountId);
    });
    await this.notifier.changed(actor.accountId, 'api_keys.changed', { apiKeyId: key.id });
    return toDto((await this.keys.findInAccount(actor.accountId, key.id)) as ApiKeyEntity);
  }

  /** POST /api_keys/{id}/regenerate: a new secret, shown once; the old one stops working. */
  async regenerate(p: Principal, id: string): Promise<ApiKeyDto> {
    const actor = await this.actors.resolve(p);
    await this.assertAllowed(actor);
    const key = await this.find(actor, id);
    this.actors.assertCanGrant(actor, key.permissions, 'change an API key');
    const plain = `${API_KEY_PREFIX}${newSecret()}`;
    await this.uow.run(async (m, emit) => {
      await this.keys.update(actor.accountId, key.id, { keyHash: sha256Hex(plain), keyPrefix: plain.slice(0, 9), updatedAt: this.clock.now() }, m);
      await this.record(m, actor, AuditAction.ApiKeyRegenerated, key.id);
      // the old secret's tokens go with it
      emit(ApiKeyRevokedV1, { apiKeyId: key.id, accountId: actor.accountId, notBefore: new Date().toISOString(), reason: 'regenerated' as const }, actor.accountId);
    });
    return toDto((await this.keys.findInAccount(actor.accountId, key.id)) as ApiKeyEntity, plain);
  }

  async delete(p: Principal, id: string): Promise<void> {
    const actor = await this.actors.resolve(p);
    const key = await this.find(actor, id);
    this.actors.assertCanGrant(actor, key.permissions, 'delete an API key');
    await this.uow.run(async (m, emit) => {
      await this.keys.delete(actor.accountId, key.id, m);
      await this.record(m, actor, AuditAction.ApiKeyDeleted, key.id);
      // every service refuses the access tokens the key was exchanged for (wall-clock time, like their `iat`)
      emit(ApiKeyDeletedV1, { apiKeyId: key.id, accountId: actor.accountId, deletedAt: new Date().toISOString() }, actor.accountId);
    });
    await this.notifier.changed(actor.accountId, 'api_keys.changed', { apiKeyId: key.id, deleted: true });
  }

  /**
   * POST /api_keys/token: the key (Authorization: Bearer sk_... or X-Api-Key) for an access token with its account
   * and permissions. An unknown or inactive key is 401 0x12; a client outside the ACL is 403 0x13; a key of an
   * account that is closed or has API keys turned off is 403 ACCESS_DENIED.
   */
  async exchange(raw: string | null): Promise<ApiKeyTokenDto> {
    if (!raw) throw AppError.unauthorized('an API key is required: Authorization: Bearer sk_... or X-Api-Key', ErrorCode.MissingToken);
    const key = KEY_SHAPE.test(raw) ? await this.keys.findByHash(sha256Hex(raw)) : null;
    if (!key || !key.active) throw AppError.unauthorized('invalid API key', ErrorCode.InvalidToken);
    const account = await this.accounts.findById(key.accountId);
    if (!account || account.status === 'disable' || account.status === 'delete' || !apiKeysAllowed(account)) {
      throw AppError.forbidden('API keys cannot be used in this account', ErrorCode.AccessDenied);
    }
    if (!ipAllowed(key.ipAcl, RequestContext.current()?.ip)) throw AppError.forbidden('this address may not use this API key', ErrorCode.IpAclRestriction);
    await this.keys.touch(key.id, this.clock.now());
    const { token, expiresIn } = this.tokens.signApiKey(key);
    return { token, token_type: 'Bearer', expires_in: expiresIn };
  }

  private validate(input: ApiKeyInput, creating: boolean): { name?: string; ipAcl?: string[]; permissions?: string[]; active?: boolean } {
    const violations: Violation[] = [];
    const out: { name?: string; ipAcl?: string[]; permissions?: string[]; active?: boolean } = {};
    if (input.name !== undefined || creating) {
      const name = (input.name ?? '').trim();
      if (!name) violations.push({ propertyPath: 'name', message: 'errors.client.required', code: 'required' });
      else if (name.length >= 100) violations.push({ propertyPath: 'name', message: 'errors.client.charLimit', code: 'charLimit' });
      else if (hasForbiddenCharacters(name)) violations.push({ propertyPath: 'name', message: XSS_MESSAGE, code: 'xss' });
      out.name = name;
    }
    if (input.ipAcl !== undefined) {
      const acl = parseIpAcl(input.ipAcl);
      violations.push(...acl.violations);
      out.ipAcl = acl.value;
    }
    if (input.active !== undefined) {
      const a = parseActive(input.active);
      if (a === null) violations.push({ propertyPath: 'active', message: 'must be 1 or 0', code: 'active' });
      else out.active = a;
    }
    if (input.permissions !== undefined) {
      out.permissions = [...new Set(input.permissions)];
      input.permissions.forEach((perm, i) => {
        if (!isPermission(perm)) violations.push({ propertyPath: `permissions[${i}]`, message: `unknown permission ${perm}`, code: 'unknownPermission' });
        else if (API_KEY_FORBIDDEN_PERMISSIONS.has(perm)) violations.push({ propertyPath: `permissions[${i}]`, message: `an API key cannot hold ${perm}`, code: 'forbiddenPermission' });
      });
    }
    if (violations.length) throw AppError.validation(violations);
    return out;
  }

  private async assertAllowed(actor: Actor): Promise<void> {
    const account = await this.accounts.findById(actor.accountId);
    if (!account || !apiKeysAllowed(account)) throw AppError.forbidden('API keys are not enabled for this account', ErrorCode.AccessDenied);
  }

  private async find(actor: Actor, id: string): Promise<ApiKeyEntity> {
    const key = await this.keys.findInAccount(actor.accountId, id);
    if (!key) throw AppError.notFound('API key');
    return key;
  }

  private record(m: Parameters<AuditLogRepository['record']>[1], actor: Actor, action: (typeof AuditAction)[keyof typeof AuditAction], keyId: string) {
    return this.audit.record(
      { accountId: actor.accountId, actorId: actor.impersonatorId ?? actor.userId, targetId: null, action, at: this.clock.now(), ip: normalizeIp(RequestContext.current()?.ip), details: { apiKeyId: keyId } },
      m,
    );
  }
}

const samePermissions = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
