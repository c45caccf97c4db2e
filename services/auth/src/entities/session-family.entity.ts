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

  /** Login-as: the account the session was opened for; it never leaves it (switching is refused). */
  @Column({ type: 'bigint', nullable: true })
  grantAccountId: string | null;

  /** Login-as: the permissions granted when it was opened; a later token never carries more. */
  @Column({ type: 'text', array: true, nullable: true })
  grantPermissions: string[] | null;

  @Column({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ type: 'text', nullable: true })
  revokedReason: string | null;
}
