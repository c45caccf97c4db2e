import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A password reset link: its token kept as SHA-256, single use, short-lived. */
@Entity({ name: 'password_reset' })
export class PasswordResetEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'bigint' })
  userId: string;

  @Column({ type: 'text' })
  tokenHash: string;

  @Column({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz' })
  expiresAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  usedAt: Date | null;
}
