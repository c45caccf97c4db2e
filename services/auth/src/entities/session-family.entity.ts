import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One sign-in: every refresh token rotated from it shares the family (the `sid` claim). */
@Entity({ name: 'session_family' })
export class SessionFamilyEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'bigint' })
  userId: string;

  /** Set for login-as sessions: who is acting. */
  @Column({ type: 'bigint', nullable: true })
  impersonatorId: string | null;

  @Column({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ type: 'text', nullable: true })
  revokedReason: string | null;
}
