import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** An opaque refresh token, stored as its SHA-256. Single use: rotation marks it used and issues the next one. */
@Entity({ name: 'refresh_token' })
export class RefreshTokenEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'uuid' })
  familyId: string;

  @Column({ type: 'text' })
  tokenHash: string;

  /** The account the session is in; the next access token is scoped to it again. */
  @Column({ type: 'bigint', nullable: true })
  accountId: string | null;

  @Column({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz' })
  expiresAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  usedAt: Date | null;
}
