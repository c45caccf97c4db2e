import { AppError } from '../errors/app-error';
import { RequestContext, type Principal } from './request-context';

const principal = (accountId: string | null): Principal => ({
  kind: 'user',
  userId: 'u1',
  email: 'u1@example.com',
  accountId,
  permissions: [],
  roles: [],
  superAdmin: false,
});

function accountError(): AppError {
  try {
    RequestContext.accountId();
  } catch (e) {
    return e as AppError;
  }
  throw new Error('accountId() returned without an account');
}

describe('RequestContext', () => {
  it('has no principal and refuses an account outside a request', () => {
    expect(RequestContext.current()).toBeUndefined();
    expect(RequestContext.principal()).toBeNull();
    expect(accountError().toBody()).toEqual({ code: 'ACCESS_DENIED', status: 403, message: 'no account selected for this request' });
  });

  it('refuses an account when the caller has not chosen one', () => {
    RequestContext.run({ principal: principal(null), traceId: 't', ip: null }, () => {
      expect(accountError().status).toBe(403);
    });
  });

  it('carries the principal set during the request across awaits, and keeps requests apart', async () => {
    const seen = await Promise.all(
      ['1', '2', '3'].map((acc) =>
        RequestContext.run({ principal: null, traceId: `trace-${acc}`, ip: null }, async () => {
          await new Promise((r) => setTimeout(r, 5 * Number(acc)));
          RequestContext.setPrincipal(principal(acc));
          await new Promise((r) => setImmediate(r));
          return `${RequestContext.current()?.traceId}:${RequestContext.accountId()}`;
        }),
      ),
    );
    expect(seen).toEqual(['trace-1:1', 'trace-2:2', 'trace-3:3']);
  });

  it('refuses to set a principal outside a request', () => {
    expect(() => RequestContext.setPrincipal(principal('1'))).toThrow(/outside a request context/);
  });
});
