import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const ACCOUNT_STATUSES = ['active', 'restrict', 'disable', 'delete'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/**
 * The accounts (customers) a user can sign in to. A read model of the accounts service's customers, upserted from
 * `accounts.customer.*` snapshots (AccountsReadModelConsumer); seeding may write a row first, which the next
 * snapshot overwrites. Ids are `BY DEFAULT` identities so the projection inserts the owner's ids.
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

  /** 0/1 as the accounts service sends it (0 until a super admin approves the account). */
  @Column({ type: 'smallint', default: 1 })
  active: number;

  /** The account's customSettings (spec 3), for the feature switches auth honours (allow_api_keys). */
  @Column({ type: 'jsonb', default: () => "'{}'::jsonb" })
  customSettings: Record<string, unknown>;

  /** occurredAt of the snapshot last applied; null for a row written by seeding. */
  @Column({ type: 'timestamptz', nullable: true, default: null })
  snapshotAt: Date | null;
}
