import { Injectable } from '@nestjs/common';
import { AccountStatus, ErrorCode } from '@switchboard/contracts';
import { AppError, type Principal } from '@switchboard/platform';
import type { CustomerEntity } from '../entities';
import { CustomerRepository } from '../repositories';

/** Disabled and deleted accounts are closed to everyone but super admins (spec 6). */
export function isClosed(c: Pick<CustomerEntity, 'status'>): boolean {
  return c.status === AccountStatus.Disable || c.status === AccountStatus.Delete;
}

/**
 * Who may act on which account, checked in the service layer on every route: a member acts only in the account
 * of their token and only while it is open; a super admin acts anywhere. Another account's id is a 404.
 */
@Injectable()
export class AccountGate {
  constructor(private readonly customers: CustomerRepository) {}

  assertOpen(c: CustomerEntity, p: Principal): void {
    if (!p.superAdmin && isClosed(c)) throw AppError.forbidden(`this account is ${c.status === AccountStatus.Delete ? 'deleted' : 'disabled'}`, ErrorCode.AccessDenied);
  }

  /** The caller's current account, open to them. */
  async current(p: Principal): Promise<CustomerEntity> {
    if (!p.accountId) throw AppError.forbidden('no account selected', ErrorCode.AccessDenied);
    const c = await this.customers.findById(p.accountId);
    // Spec 6: non-super-admins are denied when the current account is missing.
    if (!c) throw p.superAdmin ? AppError.notFound('customer') : AppError.forbidden('the current account does not exist', ErrorCode.AccessDenied);
    this.assertOpen(c, p);
    return c;
  }

  /** The current account when the caller has one (routes that also serve callers before an account is chosen). */
  async currentIfAny(p: Principal): Promise<CustomerEntity | null> {
    return p.accountId ? this.current(p) : null;
  }

  /** An account named in the request: the caller's own (404 for any other), or any one for a super admin. */
  async named(p: Principal, id: string): Promise<CustomerEntity> {
    if (!p.superAdmin && id !== p.accountId) throw AppError.notFound('customer');
    const c = await this.customers.findById(id);
    if (!c) {
      if (!p.superAdmin) await this.current(p); // the caller's own account vanished: same answer as everywhere else
      throw AppError.notFound('customer');
    }
    this.assertOpen(c, p);
    return c;
  }
}
