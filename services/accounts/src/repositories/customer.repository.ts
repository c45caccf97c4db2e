import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { AccountStatusValue } from '@switchboard/contracts';
import { ACCOUNTS_CONNECTION } from '../accounts.options';
import { CustomerEntity } from '../entities';

export interface CustomerFilter {
  search?: string;
  statuses?: AccountStatusValue[];
  active?: number;
  excludeDeleted?: boolean;
}

export type CustomerSortField = 'id' | 'name' | 'createdAt' | 'balance' | 'status' | 'tps';
const SORT_COLUMNS: Record<CustomerSortField, string> = {
  id: 'c.id',
  name: 'lower(c.name)',
  createdAt: 'c.created_at',
  balance: 'c.balance_micros',
  status: 'c.status',
  tps: 'c.tps',
};
export const CUSTOMER_SORT_FIELDS = Object.keys(SORT_COLUMNS) as CustomerSortField[];

/**
 * Customers. A customer row is its own tenant: every lookup here is by the customer's id, which callers take from
 * the request's account (or, for super admins, from the request).
 */
@Injectable()
export class CustomerRepository {
  constructor(@InjectDataSource(ACCOUNTS_CONNECTION) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(CustomerEntity);
  }

  findById(id: string, m?: EntityManager): Promise<CustomerEntity | null> {
    if (!/^\d{1,18}$/.test(id)) return Promise.resolve(null);
    return this.repo(m).findOne({ where: { id } });
  }

  /** The row locked for the rest of the transaction: status and settings changes read-modify-write it. */
  findForUpdate(id: string, m: EntityManager): Promise<CustomerEntity | null> {
    if (!/^\d{1,18}$/.test(id)) return Promise.resolve(null);
    return this.repo(m).createQueryBuilder('c').setLock('pessimistic_write').where('c.id = :id', { id }).getOne();
  }

  /** Runs `fn` holding a PostgreSQL session advisory lock named `key` (seeding by several replicas at once). */
  async withAdvisoryLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const qr = this.ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
      try {
        return await fn();
      } finally {
        await qr.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
      }
    } finally {
      await qr.release();
    }
  }

  findOldestByName(name: string, m?: EntityManager): Promise<CustomerEntity | null> {
    return this.repo(m).findOne({ where: { name }, order: { id: 'ASC' } });
  }

  insert(c: Omit<CustomerEntity, 'id' | 'portalId' | 'balanceMicros'>, m: EntityManager): Promise<CustomerEntity> {
    return this.repo(m).save(this.repo(m).create({ ...c, balanceMicros: '0' }));
  }

  async update(id: string, patch: Partial<Omit<CustomerEntity, 'id' | 'balanceMicros' | 'createdAt'>>, m: EntityManager): Promise<CustomerEntity> {
    await this.repo(m).update({ id }, patch as QueryDeepPartialEntity<CustomerEntity>);
    return (await this.findById(id, m))!;
  }

  async list(filter: CustomerFilter, page: { skip: number; take: number; order: Record<string, 'ASC' | 'DESC'> }): Promise<[CustomerEntity[], number]> {
    const qb = this.repo().createQueryBuilder('c');
    if (filter.search) {
      qb.andWhere(`(c.name ILIKE :q ESCAPE '\\' OR c.short_name ILIKE :q ESCAPE '\\' OR c.custom_id = :exact OR c.id::text = :exact)`, {
        q: `%${filter.search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`,
        exact: filter.search,
      });
    }
    if (filter.statuses?.length) qb.andWhere('c.status IN (:...statuses)', { statuses: filter.statuses });
    if (filter.excludeDeleted) qb.andWhere(`c.status <> 'delete'`);
    if (filter.active !== undefined) qb.andWhere('c.active = :active', { active: filter.active });
    for (const [field, dir] of Object.entries(page.order)) qb.addOrderBy(SORT_COLUMNS[field as CustomerSortField], dir);
    if (!('id' in page.order)) qb.addOrderBy('c.id', 'DESC');
    qb.offset(page.skip).limit(page.take);
    return qb.getManyAndCount();
  }
}
