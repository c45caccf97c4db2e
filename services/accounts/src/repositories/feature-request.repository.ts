import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { ACCOUNTS_CONNECTION } from '../accounts.options';
import { FeatureAccessRequestEntity, FeatureRequestStatus } from '../entities';

@Injectable()
export class FeatureRequestRepository {
  constructor(@InjectDataSource(ACCOUNTS_CONNECTION) private readonly ds: DataSource) {}

  /** Null when a request for this feature is already pending in the account (the unique index decides, race-free). */
  async insertPending(r: { accountId: string; userId: string | null; email: string | null; feature: string; message: string }, m: EntityManager): Promise<FeatureAccessRequestEntity | null> {
    const rows = await m.query<Array<{ id: string; created_at: Date }>>(
      `INSERT INTO accounts.feature_access_request (account_id, user_id, email, feature, message, status) VALUES ($1, $2, $3, $4, $5, 'pending')
       ON CONFLICT (account_id, feature) WHERE status = 'pending' DO NOTHING RETURNING id, created_at`,
      [r.accountId, r.userId, r.email, r.feature, r.message],
    );
    if (!rows.length) return null;
    return Object.assign(new FeatureAccessRequestEntity(), { ...r, id: rows[0].id, status: FeatureRequestStatus.Pending, createdAt: rows[0].created_at });
  }

  listForAccount(accountId: string): Promise<FeatureAccessRequestEntity[]> {
    return this.ds.getRepository(FeatureAccessRequestEntity).find({ where: { accountId }, order: { id: 'DESC' } });
  }
}
