import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { IsNull, type DataSource, type EntityManager } from 'typeorm';
import { AUTH_CONNECTION } from '../auth.options';
import { RefreshTokenEntity, SessionFamilyEntity } from '../entities';

/** Session families and their refresh tokens. Lock order is always family, then tokens. */
@Injectable()
export class SessionRepository {
  constructor(@InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource) {}

  private families(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(SessionFamilyEntity);
  }
  private tokens(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(RefreshTokenEntity);
  }

  async createFamily(f: Pick<SessionFamilyEntity, 'id' | 'userId' | 'impersonatorId' | 'createdAt'>, m: EntityManager): Promise<void> {
    await this.families(m).insert({ ...f, revokedAt: null, revokedReason: null });
  }

  lockFamily(id: string, m: EntityManager): Promise<SessionFamilyEntity | null> {
    return this.families(m).createQueryBuilder('f').setLock('pessimistic_write').where('f.id = :id', { id }).getOne();
  }

  findTokenByHash(tokenHash: string, m?: EntityManager): Promise<RefreshTokenEntity | null> {
    return this.tokens(m).findOne({ where: { tokenHash } });
  }

  lockToken(id: string, m: EntityManager): Promise<RefreshTokenEntity | null> {
    return this.tokens(m).createQueryBuilder('t').setLock('pessimistic_write').where('t.id = :id', { id }).getOne();
  }

  async insertToken(t: Omit<RefreshTokenEntity, 'id' | 'usedAt'>, m: EntityManager): Promise<void> {
    await this.tokens(m).insert({ ...t, usedAt: null });
  }

  async markUsed(id: string, at: Date, m: EntityManager): Promise<void> {
    await this.tokens(m).update({ id }, { usedAt: at });
  }

  /** Retires every still-unused token of a family (before its successor is issued). */
  async retireUnused(familyId: string, at: Date, m: EntityManager): Promise<void> {
    await this.tokens(m).update({ familyId, usedAt: IsNull() }, { usedAt: at });
  }

  async revokeFamily(id: string, reason: string, at: Date, m: EntityManager): Promise<void> {
    await this.families(m).update({ id, revokedAt: IsNull() }, { revokedAt: at, revokedReason: reason });
  }
}
