import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The current PIN challenge of a user (one row per user; a new PIN replaces it). Only a salted hash of the PIN is kept. */
@Entity({ name: 'login_challenge' })
export class LoginChallengeEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'bigint' })
  userId: string;

  @Column({ type: 'text' })
  pinSalt: string;

  @Column({ type: 'text' })
  pinHash: string;

  @Column({ type: 'timestamptz' })
  sentAt: Date;

  @Column({ type: 'timestamptz' })
  expiresAt: Date;

  @Column({ type: 'integer' })
  failedAttempts: number;

  @Column({ type: 'timestamptz', nullable: true })
  consumedAt: Date | null;
}
