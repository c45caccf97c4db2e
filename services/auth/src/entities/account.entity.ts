import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const ACCOUNT_STATUSES = ['active', 'restrict', 'disable', 'delete'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/**
 * The accounts (customers) a user can sign in to. A read model: the accounts service will own accounts and feed
 * this table from its events; until then the seeding API writes it. Ids are `BY DEFAULT` identities so the
 * projection can insert the owner's ids.
 */
@Entity({ name: 'account' })
export class AccountEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'BY DEFAULT' })
  id: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  shortName: string;

  @Column({ type: 'text' })
  status: AccountStatus;

  @Column({ type: 'text' })
  currency: string;

  @Column({ type: 'timestamptz' })
  createdAt: Date;
}
