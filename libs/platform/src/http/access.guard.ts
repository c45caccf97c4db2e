import { Injectable, Optional, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { ErrorCode } from '@switchboard/contracts';
import { RevocationList } from '../auth/revocations';
import { TokenVerifier } from '../auth/tokens';
import { RequestContext, type Principal } from '../context/request-context';
import { AppError } from '../errors/app-error';
import { AccountDirectory, assertAccountOpen } from '../tenancy/account-directory';
import { ACCESS_KEY, QUERY_TOKEN_KEY, type AccessRule } from './decorators';

export const SUPER_ADMIN_ROLE = 'ROLE_SUPER_ADMIN';

/**
 * Reads the bearer token from the Authorization header, or, only where the route allows it (`@QueryToken()`: the
 * event stream, downloads), from `access_token` on GET requests. A token in any other URL is ignored.
 */
export function bearerToken(req: Request, opts: { allowQuery?: boolean } = {}): string | null {
  const h = req.headers.authorization;
  if (h && /^Bearer\s+/i.test(h)) return h.replace(/^Bearer\s+/i, '').trim() || null;
  if (!opts.allowQuery || (req.method !== 'GET' && req.method !== 'HEAD')) return null;
  const q = req.query?.access_token;
  return typeof q === 'string' && q ? q : null;
}

export function principalFromClaims(c: ReturnType<TokenVerifier['verifyAccess']>): Principal {
  const apiKey = c.kind === 'apiKey';
  return {
    kind: apiKey ? 'apiKey' : 'user',
    userId: apiKey ? null : c.sub,
    email: c.email,
    accountId: c.acc,
    permissions: c.perms,
    roles: c.roles,
    superAdmin: c.sa,
    impersonatorId: c.imp ?? null,
    sessionId: c.sid,
  };
}

/**
 * The one global guard: authenticates the bearer token (ES256 JWT, access type only, so a pre-PIN token or a
 * refresh token opens nothing) and applies the route's declared access rule. A route that declares no rule is
 * refused with 500 so it can never be open by omission.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: TokenVerifier,
    // absent in processes that do not register a directory: then only auth's token check applies
    @Optional() private readonly accounts?: AccountDirectory,
    // the event-fed deny list (docs/decisions/0029); absent only in bare test modules
    @Optional() private readonly revocations?: RevocationList,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_KEY, [context.getHandler(), context.getClass()]);
    if (!rule) throw new AppError(500, ErrorCode.General, 'route declares no access rule');
    const req = context.switchToHttp().getRequest<Request>();
    const allowQuery = this.reflector.getAllAndOverride<boolean | undefined>(QUERY_TOKEN_KEY, [context.getHandler(), context.getClass()]) === true;
    const token = bearerToken(req, { allowQuery });
    if (rule.kind === 'public') {
      // A public route may still know its caller (e.g. login-as), but never requires one.
      if (token) this.tryAuthenticate(token);
      return true;
    }
    if (!token) throw AppError.unauthorized('missing token', ErrorCode.MissingToken);
    const claims = this.verifier.verifyAccess(token);
    this.revocations?.assertNotRevoked(claims);
    const principal = principalFromClaims(claims);
    RequestContext.setPrincipal(principal);
    checkRule(rule, principal);
    assertAccountOpen(this.accounts, rule, principal);
    return true;
  }

  private tryAuthenticate(token: string): void {
    try {
      const claims = this.verifier.verifyAccess(token);
      this.revocations?.assertNotRevoked(claims);
      RequestContext.setPrincipal(principalFromClaims(claims));
    } catch {
      /* public route: an invalid token is simply ignored */
    }
  }
}

export function checkRule(rule: AccessRule, p: Principal): boolean {
  switch (rule.kind) {
    case 'public':
      return true;
    case 'authenticated':
      if (rule.accountRequired && !p.accountId) throw AppError.forbidden('no account selected', ErrorCode.AccessDenied);
      return true;
    case 'superAdmin':
      if (!p.superAdmin) throw AppError.forbidden('super administrators only');
      return true;
    case 'permissions': {
      if (!p.accountId) throw AppError.forbidden('no account selected', ErrorCode.AccessDenied);
      if (p.superAdmin) return true;
      const missing = rule.permissions.filter((x) => !p.permissions.includes(x));
      if (missing.length) throw AppError.forbidden(`missing permission: ${missing.join(', ')}`);
      return true;
    }
  }
}
