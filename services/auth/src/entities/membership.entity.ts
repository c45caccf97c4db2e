import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

import { MembershipStatus, type MembershipStatusValue } from '@switchboard/contracts';

export { MembershipStatus, type MembershipStatusValue };

/** Statuses that let a user enter the account. */
export const ENTERING_STATUSES: readonly MembershipStatusValue[] = [MembershipStatus.Owner, MembershipStatus.Active];

/** A user's place in one account: one platform role and one inbox role (spec 3, Invite). */
@Entity({ name: 'membership' })
export class MembershipEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'bigint' })
  userId: string;

  @Column({ type: 'bigint' })
  accountId: string;

  @Column({ type: 'bigint', nullable: true })
  platformRoleId: string | null;

  @Column({ type: 'bigint', nullable: true })
  inboxRoleId: string | null;

  @Column({ type: 'smallint' })
  status: MembershipStatusValue;

  @Column({ type: 'timestamptz' })
  createdAt: Date;
}
