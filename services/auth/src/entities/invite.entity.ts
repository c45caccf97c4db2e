import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

import { InviteStatus, type InviteStatusValue } from '@switchboard/contracts';

export { InviteStatus, type InviteStatusValue };

/** An invitation to join an account with one platform role and one inbox role; the emailed token is kept as its SHA-256. */
@Entity({ name: 'invite' })
export class InviteEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'bigint' })
  accountId: string;

  @Column({ type: 'text' })
  email: string;

  @Column({ type: 'text' })
  firstName: string;

  @Column({ type: 'text' })
  lastName: string;

  @Column({ type: 'bigint', nullable: true })
  platformRoleId: string | null;

  @Column({ type: 'bigint', nullable: true })
  inboxRoleId: string | null;

  @Column({ type: 'smallint' })
  status: InviteStatusValue;

  @Column({ type: 'text' })
  tokenHash: string;

  @Column({ type: 'bigint', nullable: true })
  invitedBy: string | null;

  @Column({ type: 'bigint', nullable: true })
  acceptedBy: string | null;

  @Column({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz' })
  expiresAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  acceptedAt: Date | null;
}
