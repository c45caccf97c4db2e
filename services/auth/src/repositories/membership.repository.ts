import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AUTH_CONNECTION } from '../auth.options';
import { MembershipEntity } from '../entities';

@Injectable()
export class MembershipRepository {
  constructor(@InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(MembershipEntity);
  }

  find(userId: string, accountId: string, m?: EntityManager): Promise<MembershipEntity | null> {
    return this.repo(m).findOne({ where: { userId, accountId } });
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
}
