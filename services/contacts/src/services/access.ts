import { AppError, RequestContext, type Principal } from '@switchboard/platform';

/** Permission checks that depend on the request's content (an import's or a task's type), not only on the route. */
export function hasPermission(p: Principal, permission: string): boolean {
  return p.superAdmin || p.permissions.includes(permission);
}

export function requireAnyPermission(p: Principal, ...permissions: string[]): void {
  if (!permissions.some((x) => hasPermission(p, x))) throw AppError.forbidden(`missing permission: ${permissions.join(' or ')}`);
}

/** The caller's account and the caller; every route of the service runs inside one account. */
export function caller(): { accountId: string; principal: Principal } {
  const principal = RequestContext.principal();
  if (!principal) throw AppError.unauthorized();
  return { accountId: RequestContext.accountId(), principal };
}

/** A path or query id: digits only, else 404 (an id that cannot exist is simply not found). */
export function parseId(raw: unknown, what = 'resource'): string {
  const s = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  if (!/^\d{1,18}$/.test(s) || s === '0' || /^0+$/.test(s)) throw AppError.notFound(what);
  return s.replace(/^0+/, '');
}

/** An id given in a body: a number, a decimal string, or an IRI such as `/api/contact_lists/12`. */
export function idFromInput(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return String(v);
  if (typeof v === 'string') {
    const m = /^(?:\/api\/[a-z_]+\/)?(\d{1,18})$/.exec(v.trim());
    if (m && !/^0+$/.test(m[1])) return m[1].replace(/^0+/, '');
  }
  return null;
}
