import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from '../errors/app-error';

export type PrincipalKind = 'user' | 'apiKey' | 'streamToken' | 'system';

/** Who is calling, for which account, with which permissions. Set by the auth guard, read by services. */
export interface Principal {
  kind: PrincipalKind;
  userId: string | null;
  email: string | null;
  /** The account the call acts in; null only before an account is chosen. */
  accountId: string | null;
  permissions: readonly string[];
  roles: readonly string[];
  superAdmin: boolean;
  /** Set while a super admin or admin is logged in as another user. */
  impersonatorId?: string | null;
  /** The session (token `sid`): a login's refresh-token family; random for API-key tokens. */
  sessionId?: string;
}

export interface RequestContextData {
  principal: Principal | null;
  traceId: string;
  ip: string | null;
}

const storage = new AsyncLocalStorage<RequestContextData>();

export const RequestContext = {
  run<T>(data: RequestContextData, fn: () => T): T {
    return storage.run(data, fn);
  },
  current(): RequestContextData | undefined {
    return storage.getStore();
  },
  principal(): Principal | null {
    return storage.getStore()?.principal ?? null;
  },
  /** The tenant of the current call; throws when there is none, so no tenant query can run unscoped. */
  accountId(): string {
    const id = storage.getStore()?.principal?.accountId;
    if (!id) throw new AppError(403, 'ACCESS_DENIED', 'no account selected for this request');
    return id;
  },
  setPrincipal(principal: Principal): void {
    const store = storage.getStore();
    if (!store) throw new Error('RequestContext.setPrincipal called outside a request context');
    store.principal = principal;
  },
};
