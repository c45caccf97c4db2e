import { SetMetadata, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { RequestContext, type Principal } from '../context/request-context';
import { AppError } from '../errors/app-error';

export const ACCESS_KEY = 'switchboard:access';

/**
 * Every route declares who may call it; the guard refuses routes that declare nothing.
 * - public: anyone (login, health, the stream API which authenticates its own token);
 * - authenticated: any signed-in user, with or without an account (profile, account choice);
 * - permissions: a signed-in user of an account holding ALL the listed permission strings (spec section 6);
 * - superAdmin: ROLE_SUPER_ADMIN only.
 */
export type AccessRule =
  | { kind: 'public' }
  | { kind: 'authenticated'; accountRequired: boolean }
  | { kind: 'permissions'; permissions: string[] }
  | { kind: 'superAdmin' };

export const Public = () => SetMetadata(ACCESS_KEY, { kind: 'public' } satisfies AccessRule);
export const Authenticated = (opts: { accountRequired?: boolean } = {}) =>
  SetMetadata(ACCESS_KEY, { kind: 'authenticated', accountRequired: opts.accountRequired ?? false } satisfies AccessRule);
export const Permissions = (...permissions: string[]) => {
  if (permissions.length === 0) throw new Error('@Permissions() needs at least one permission');
  return SetMetadata(ACCESS_KEY, { kind: 'permissions', permissions } satisfies AccessRule);
};
export const SuperAdmin = () => SetMetadata(ACCESS_KEY, { kind: 'superAdmin' } satisfies AccessRule);

export const QUERY_TOKEN_KEY = 'switchboard:query-token';

/**
 * The route also takes the access token as `?access_token=` (GET only): for the few a browser opens where no header
 * can be sent, the event stream (EventSource) and file downloads (a link). Everywhere else a token in the URL is
 * ignored, so it does not end up in browser history, proxy logs and Referer headers.
 */
export const QueryToken = () => SetMetadata(QUERY_TOKEN_KEY, true);

/** The caller, as set by the guard. Throws 401 on a route where nobody is signed in. */
export const CurrentPrincipal = createParamDecorator((_: unknown, _ctx: ExecutionContext): Principal => {
  const p = RequestContext.principal();
  if (!p) throw AppError.unauthorized();
  return p;
});
