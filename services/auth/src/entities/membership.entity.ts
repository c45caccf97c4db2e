import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Team member status of spec 4: no role -1, owner 0, pending 1, active 2, disabled 3. */
export const MembershipStatus = {
  NoRole: -1,
  Owner: 0,
  Pending: 1,
  Active: 2,
  Disabled: 3,
} as const;
export type MembershipStatusValue = (typeof MembershipStatus)[keyof typeof MembershipStatus];

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
