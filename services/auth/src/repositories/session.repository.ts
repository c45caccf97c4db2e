import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { IsNull, type DataSource, type EntityManager } from 'typeorm';
import { AUTH_CONNECTION } from '../auth.options';
import { RefreshTokenEntity, SessionFamilyEntity } from '../entities';
import { updatedRows } from './sql';

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

  async createFamily(f: Pick<SessionFamilyEntity, 'id' | 'userId' | 'impersonatorId' | 'grantAccountId' | 'grantPermissions' | 'createdAt'>, m: EntityManager): Promise<void> {
    await this.families(m).insert({ ...f, revokedAt: null, revokedReason: null });
  }

  lockFamily(id: string, m: EntityManager): Promise<SessionFamilyEntity | null> {
    return this.families(m).createQueryBuilder('f').setLock('pessimistic_write').where('f.id = :id', { id }).getOne();
  }

  findFamily(id: string, m?: EntityManager): Promise<SessionFamilyEntity | null> {
    return this.families(m).findOne({ where: { id } });
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

  /**
   * Ends every live session of a user, and every login-as session they opened as someone else. Answers the
   * families ended with their user, for the revocation events.
   */
  async revokeAllOfUser(userId: string, reason: string, at: Date, m: EntityManager): Promise<Array<{ familyId: string; userId: string; accountId: string | null }>> {
    return this.revokeWhere(`(f.user_id = $1 OR f.impersonator_id = $1)`, [userId], reason, at, m);
  }

  /** Ends the user's live sessions that are in `accountId` now (their live refresh token is scoped to it). */
  async revokeInAccount(userId: string, accountId: string, reason: string, at: Date, m: EntityManager): Promise<Array<{ familyId: string; userId: string; accountId: string | null }>> {
    return this.revokeWhere(
      `(f.user_id = $1 OR f.impersonator_id = $1) AND EXISTS (SELECT 1 FROM auth.refresh_token t WHERE t.family_id = f.id AND t.used_at IS NULL AND t.account_id = $2)`,
      [userId, accountId],
      reason,
      at,
      m,
    );
  }

  private async revokeWhere(condition: string, params: unknown[], reason: string, at: Date, m: EntityManager) {
    const n = params.length;
    const rows = updatedRows<{ id: string; user_id: string; account_id: string | null }>(
      await m.query(
        `UPDATE auth.session_family f SET revoked_at = $${n + 1}, revoked_reason = $${n + 2}
         WHERE f.revoked_at IS NULL AND ${condition}
         RETURNING f.id, f.user_id::text AS user_id,
           (SELECT t.account_id::text FROM auth.refresh_token t WHERE t.family_id = f.id ORDER BY t.id DESC LIMIT 1) AS account_id`,
        [...params, at, reason],
      ),
    );
    return rows.map((r) => ({ familyId: r.id, userId: r.user_id, accountId: r.account_id }));
  }
}
