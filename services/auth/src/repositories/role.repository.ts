import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { In, IsNull, type DataSource, type EntityManager } from 'typeorm';
import type { RoleType } from '@switchboard/contracts';
import { AUTH_CONNECTION } from '../auth.options';
import { RoleEntity } from '../entities';

export interface RoleListOptions {
  roleType?: RoleType;
  skip: number;
  take: number;
  order: Record<string, 'ASC' | 'DESC'>;
}

export type RolePatch = Partial<Pick<RoleEntity, 'name' | 'description' | 'permissions' | 'isDeleted'>>;

@Injectable()
export class RoleRepository {
  constructor(@InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(RoleEntity);
  }

  findSystemRole(name: string, m?: EntityManager): Promise<RoleEntity | null> {
    return this.repo(m).findOne({ where: { name, accountId: IsNull() } });
  }

  /** Creates or refreshes a system role (account_id null): its permission list follows the code on every start. */
  async upsertSystemRole(role: Pick<RoleEntity, 'name' | 'description' | 'roleType' | 'permissions' | 'readOnly' | 'sortRank'>, now: Date, m?: EntityManager): Promise<RoleEntity> {
    await (m ?? this.ds.manager).query(
      `INSERT INTO auth.role (account_id, name, description, role_type, permissions, read_only, is_deleted, created_at, sort_rank)
       VALUES (NULL, $1, $2, $3, $4, $5, false, $6, $7)
       ON CONFLICT (name) WHERE account_id IS NULL
       DO UPDATE SET description = EXCLUDED.description, role_type = EXCLUDED.role_type, permissions = EXCLUDED.permissions,
                     read_only = EXCLUDED.read_only, is_deleted = false, sort_rank = EXCLUDED.sort_rank`,
      [role.name, role.description, role.roleType, role.permissions, role.readOnly, now, role.sortRank],
    );
    return (await this.findSystemRole(role.name, m)) as RoleEntity;
  }

  insert(role: Omit<RoleEntity, 'id' | 'sortRank'> & { sortRank?: number }, m?: EntityManager): Promise<RoleEntity> {
    return this.repo(m).save(this.repo(m).create({ sortRank: 100, ...role }));
  }

  /** Live roles among `ids` usable in `accountId`: system roles or the account's own. */
  findUsable(ids: string[], accountId: string, m?: EntityManager): Promise<RoleEntity[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.repo(m).find({ where: [
      { id: In(ids), accountId: IsNull(), isDeleted: false },
      { id: In(ids), accountId, isDeleted: false },
    ] });
  }

  /** One live role usable in the account (a system role or the account's own), else null. */
  async findUsableOne(id: string, accountId: string, m?: EntityManager): Promise<RoleEntity | null> {
    return (await this.findUsable([id], accountId, m))[0] ?? null;
  }

  /** The roles the account sees: system roles then its own, read-only first in the spec's order, then `order`. */
  async list(accountId: string, o: RoleListOptions, m?: EntityManager): Promise<[RoleEntity[], number]> {
    const qb = this.repo(m)
      .createQueryBuilder('r')
      .where('(r.accountId IS NULL OR r.accountId = :accountId) AND NOT r.isDeleted', { accountId });
    if (o.roleType) qb.andWhere('r.roleType = :roleType', { roleType: o.roleType });
    qb.orderBy('r.readOnly', 'DESC').addOrderBy('r.sortRank', 'ASC');
    for (const [field, dir] of Object.entries(o.order)) qb.addOrderBy(`r.${field}`, dir);
    if (!('id' in o.order)) qb.addOrderBy('r.id', 'ASC');
    return qb.skip(o.skip).take(o.take).getManyAndCount();
  }

  /** Names in use where a new role of the account would clash: the account's live roles and the system roles. */
  async namesVisibleTo(accountId: string, m?: EntityManager): Promise<string[]> {
    const rows = (await (m ?? this.ds.manager).query(
      `SELECT name FROM auth.role WHERE (account_id IS NULL OR account_id = $1) AND NOT is_deleted`,
      [accountId],
    )) as Array<{ name: string }>;
    return rows.map((r) => r.name);
  }

  /** Serialises role naming within one account (two "Custom role name" drafts at once get " - 1" and " - 2"). */
  async lockAccountRoles(accountId: string, m: EntityManager): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended('auth.role:' || $1::text, 0))`, [accountId]);
  }

  async update(id: string, patch: RolePatch, m?: EntityManager): Promise<void> {
    await this.repo(m).update({ id }, patch);
  }

  findById(id: string, m?: EntityManager): Promise<RoleEntity | null> {
    return this.repo(m).findOne({ where: { id } });
  }
}
