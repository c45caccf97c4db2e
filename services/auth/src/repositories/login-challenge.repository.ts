import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AUTH_CONNECTION } from '../auth.options';
import { LoginChallengeEntity } from '../entities';

export interface NewChallenge {
  userId: string;
  pinSalt: string;
  pinHash: string;
  sentAt: Date;
  expiresAt: Date;
}

@Injectable()
export class LoginChallengeRepository {
  constructor(@InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(LoginChallengeEntity);
  }

  findByUser(userId: string, m?: EntityManager): Promise<LoginChallengeEntity | null> {
    return this.repo(m).findOne({ where: { userId } });
  }

  /** Reads the challenge and locks it until the transaction ends, so two PIN checks never both pass. */
  lockByUser(userId: string, m: EntityManager): Promise<LoginChallengeEntity | null> {
    return this.repo(m).createQueryBuilder('c').setLock('pessimistic_write').where('c.userId = :userId', { userId }).getOne();
  }

  /**
   * Replaces the user's challenge with a new PIN in one statement, unless the current one is still open and was
   * sent after `heldUntilBefore` (the resend cool-down). Returns the new challenge id, or null when held back.
   */
  async replace(c: NewChallenge, heldUntilBefore: Date, m?: EntityManager): Promise<string | null> {
    const rows = (await (m ?? this.ds.manager).query(
      `INSERT INTO auth.login_challenge AS cur (user_id, pin_salt, pin_hash, sent_at, expires_at, failed_attempts, consumed_at)
       VALUES ($1, $2, $3, $4, $5, 0, NULL)
       ON CONFLICT (user_id) DO UPDATE
         SET pin_salt = EXCLUDED.pin_salt, pin_hash = EXCLUDED.pin_hash, sent_at = EXCLUDED.sent_at,
             expires_at = EXCLUDED.expires_at, failed_attempts = 0, consumed_at = NULL
         WHERE cur.consumed_at IS NOT NULL OR cur.sent_at <= $6
       RETURNING id`,
      [c.userId, c.pinSalt, c.pinHash, c.sentAt, c.expiresAt, heldUntilBefore],
    )) as Array<{ id: string }>;
    return rows.length ? String(rows[0].id) : null;
  }

  async recordWrongPin(id: string, m: EntityManager): Promise<void> {
    await this.repo(m).increment({ id }, 'failedAttempts', 1);
  }

  async consume(id: string, at: Date, m: EntityManager): Promise<void> {
    await this.repo(m).update({ id }, { consumedAt: at });
  }

  /** Withdraws a challenge whose email could not be sent, so the user may ask again at once. */
  async delete(id: string, m?: EntityManager): Promise<void> {
    await this.repo(m).delete({ id });
  }
}
