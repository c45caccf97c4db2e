import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AUTH_CONNECTION } from '../auth.options';
import { MembershipEntity, type MembershipStatusValue } from '../entities';
import { updatedRows } from './sql';

/** A member with what the team screens and the member events show. */
export interface MemberRow {
  userId: string;
  accountId: string;
  email: string;
  firstName: string;
  lastName: string;
  superAdmin: boolean;
  status: MembershipStatusValue;
  createdAt: Date;
  platformRole: { id: string; name: string } | null;
  inboxRole: { id: string; name: string } | null;
  /** The two roles' permissions together, sorted. */
  permissions: string[];
}

export interface MemberListOptions {
  status?: MembershipStatusValue;
  search?: string;
  skip: number;
  take: number;
  order: Record<string, 'ASC' | 'DESC'>;
}

const MEMBER_COLUMNS: Record<string, string> = { id: 'u.id', email: 'u.email', createdAt: 'ms.created_at', status: 'ms.status' };

const MEMBER_SELECT = `
  SELECT u.id::text AS user_id, ms.account_id::text AS account_id, u.email, u.first_name, u.last_name, u.super_admin, ms.status, ms.created_at,
         pr.id::text AS platform_role_id, pr.name AS platform_role_name, ir.id::text AS inbox_role_id, ir.name AS inbox_role_name,
         ARRAY(SELECT DISTINCT p FROM unnest(coalesce(pr.permissions, '{}') || coalesce(ir.permissions, '{}')) AS p ORDER BY p) AS permissions
  FROM auth.membership ms
  JOIN auth.app_user u ON u.id = ms.user_id
  LEFT JOIN auth.role pr ON pr.id = ms.platform_role_id AND NOT pr.is_deleted
  LEFT JOIN auth.role ir ON ir.id = ms.inbox_role_id AND NOT ir.is_deleted`;

interface RawMember {
  user_id: string;
  account_id: string;
  email: string;
  first_name: string;
  last_name: string;
  super_admin: boolean;
  status: number;
  created_at: Date;
  platform_role_id: string | null;
  platform_role_name: string | null;
  inbox_role_id: string | null;
  inbox_role_name: string | null;
  permissions: string[];
  total?: string;
}

const toMember = (r: RawMember): MemberRow => ({
  userId: r.user_id,
  accountId: r.account_id,
  email: r.email,
  firstName: r.first_name,
  lastName: r.last_name,
  superAdmin: r.super_admin,
  status: r.status as MembershipStatusValue,
  createdAt: new Date(r.created_at),
  platformRole: r.platform_role_id ? { id: r.platform_role_id, name: r.platform_role_name ?? '' } : null,
  inboxRole: r.inbox_role_id ? { id: r.inbox_role_id, name: r.inbox_role_name ?? '' } : null,
  permissions: r.permissions ?? [],
});

@Injectable()
export class MembershipRepository {
  constructor(@InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(MembershipEntity);
  }

  find(userId: string, accountId: string, m?: EntityManager): Promise<MembershipEntity | null> {
    return this.repo(m).findOne({ where: { userId, accountId } });
  }

  lock(userId: string, accountId: string, m: EntityManager): Promise<MembershipEntity | null> {
    return this.repo(m).createQueryBuilder('ms').setLock('pessimistic_write').where('ms.userId = :userId AND ms.accountId = :accountId', { userId, accountId }).getOne();
  }

  /** Adds the membership or updates its roles and status. */
  async upsert(ms: Pick<MembershipEntity, 'userId' | 'accountId' | 'platformRoleId' | 'inboxRoleId' | 'status' | 'createdAt'>, m?: EntityManager): Promise<MembershipEntity> {
    await (m ?? this.ds.manager).query(
      `INSERT INTO auth.membership (user_id, account_id, platform_role_id, inbox_role_id, status, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (user_id, account_id)
       DO UPDATE SET platform_role_id = EXCLUDED.platform_role_id, inbox_role_id = EXCLUDED.inbox_role_id, status = EXCLUDED.status`,
      [ms.userId, ms.accountId, ms.platformRoleId, ms.inboxRoleId, ms.status, ms.createdAt],
    );
    return (await this.find(ms.userId, ms.accountId, m)) as MembershipEntity;
  }

  async update(userId: string, accountId: string, patch: Partial<Pick<MembershipEntity, 'platformRoleId' | 'inboxRoleId' | 'status'>>, m?: EntityManager): Promise<void> {
    await this.repo(m).update({ userId, accountId }, patch);
  }

  async delete(userId: string, accountId: string, m?: EntityManager): Promise<void> {
    await this.repo(m).delete({ userId, accountId });
  }

  async member(accountId: string, userId: string, m?: EntityManager): Promise<MemberRow | null> {
    const rows = (await (m ?? this.ds.manager).query(`${MEMBER_SELECT} WHERE ms.account_id = $1 AND ms.user_id = $2`, [accountId, userId])) as RawMember[];
    return rows.length ? toMember(rows[0]) : null;
  }

  /** Several members of one account in one query. */
  async members(accountId: string, userIds: string[], m?: EntityManager): Promise<MemberRow[]> {
    if (!userIds.length) return [];
    const rows = (await (m ?? this.ds.manager).query(`${MEMBER_SELECT} WHERE ms.account_id = $1 AND ms.user_id = ANY($2::bigint[]) ORDER BY u.id`, [accountId, userIds])) as RawMember[];
    return rows.map(toMember);
  }

  async list(accountId: string, o: MemberListOptions, m?: EntityManager): Promise<[MemberRow[], number]> {
    const params: unknown[] = [accountId];
    const where = ['ms.account_id = $1'];
    if (o.status !== undefined) {
      params.push(o.status);
      where.push(`ms.status = $${params.length}`);
    }
    if (o.search) {
      params.push(`%${o.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`(u.email ILIKE $${params.length} OR u.first_name ILIKE $${params.length} OR u.last_name ILIKE $${params.length})`);
    }
    const order = Object.entries(o.order).map(([f, d]) => `${MEMBER_COLUMNS[f]} ${d}`);
    params.push(o.take, o.skip);
    const page = (await (m ?? this.ds.manager).query(
      `${MEMBER_SELECT.replace('SELECT u.id::text', 'SELECT count(*) OVER ()::text AS total, u.id::text')}
       WHERE ${where.join(' AND ')}
       ORDER BY ${[...order, 'u.id DESC'].join(', ')}
       LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    )) as RawMember[];
    if (page.length) return [page.map(toMember), Number(page[0].total)];
    const [{ n }] = (await (m ?? this.ds.manager).query(
      `SELECT count(*)::int AS n FROM auth.membership ms JOIN auth.app_user u ON u.id = ms.user_id WHERE ${where.join(' AND ')}`,
      params.slice(0, -2),
    )) as Array<{ n: number }>;
    return [[], n];
  }

  /**
   * Takes a deleted role away from every membership holding it; a member left with no role gets status -1 (no role)
   * unless owner or disabled. Answers the (account, user) pairs touched.
   */
  async detachRole(roleId: string, m: EntityManager): Promise<Array<{ accountId: string; userId: string }>> {
    const touched = updatedRows<{ account_id: string; user_id: string }>(
      await m.query(
        `UPDATE auth.membership ms
           SET platform_role_id = CASE WHEN platform_role_id = $1 THEN NULL ELSE platform_role_id END,
               inbox_role_id = CASE WHEN inbox_role_id = $1 THEN NULL ELSE inbox_role_id END
         WHERE platform_role_id = $1 OR inbox_role_id = $1
         RETURNING account_id::text AS account_id, user_id::text AS user_id`,
        [roleId],
      ),
    );
    await m.query(
      `UPDATE auth.membership SET status = -1
       WHERE platform_role_id IS NULL AND inbox_role_id IS NULL AND status = 2 AND (account_id, user_id) IN (SELECT * FROM unnest($1::bigint[], $2::bigint[]))`,
      [touched.map((t) => t.account_id), touched.map((t) => t.user_id)],
    );
    return touched.map((t) => ({ accountId: t.account_id, userId: t.user_id }));
  }

  /** (account, user) pairs of the members holding one of these roles. */
  async holdersOf(roleIds: string[], m?: EntityManager): Promise<Array<{ accountId: string; userId: string }>> {
    if (!roleIds.length) return [];
    const rows = (await (m ?? this.ds.manager).query(
      `SELECT account_id::text AS account_id, user_id::text AS user_id FROM auth.membership
       WHERE platform_role_id = ANY($1::bigint[]) OR inbox_role_id = ANY($1::bigint[])`,
      [roleIds],
    )) as Array<{ account_id: string; user_id: string }>;
    return rows.map((r) => ({ accountId: r.account_id, userId: r.user_id }));
  }
}
