import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { IsNull, type DataSource, type EntityManager } from 'typeorm';
import { AUTH_CONNECTION } from '../auth.options';
import { PasswordResetEntity } from '../entities';

@Injectable()
export class PasswordResetRepository {
  constructor(@InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(PasswordResetEntity);
  }

  latestOf(userId: string, m?: EntityManager): Promise<PasswordResetEntity | null> {
    return this.repo(m).findOne({ where: { userId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  findByHash(tokenHash: string, m?: EntityManager): Promise<PasswordResetEntity | null> {
    return this.repo(m).findOne({ where: { tokenHash } });
  }

  lockByHash(tokenHash: string, m: EntityManager): Promise<PasswordResetEntity | null> {
    return this.repo(m).createQueryBuilder('r').setLock('pessimistic_write').where('r.tokenHash = :tokenHash', { tokenHash }).getOne();
  }

  async insert(r: Pick<PasswordResetEntity, 'userId' | 'tokenHash' | 'createdAt' | 'expiresAt'>, m?: EntityManager): Promise<void> {
    await this.repo(m).insert({ ...r, usedAt: null });
  }

  /** Every open link of the user stops working (one was used, or the password changed another way). */
  async useAllOf(userId: string, at: Date, m: EntityManager): Promise<void> {
    await this.repo(m).update({ userId, usedAt: IsNull() }, { usedAt: at });
  }
}
