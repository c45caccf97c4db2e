import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const BalanceEntryKind = { Adjustment: 'adjustment', Charge: 'charge', Refund: 'refund' } as const;
export type BalanceEntryKindValue = (typeof BalanceEntryKind)[keyof typeof BalanceEntryKind];

/**
 * One movement of an account's balance. `(account_id, kind, source_id)` is unique: a charge or refund is recorded
 * once per message however often its event arrives, an adjustment once per adjustment id. The table's primary key is
 * `(account_id, id)` (docs/decisions/0222): a query of an entry by id names its account too.
 */
@Entity({ name: 'balance_entry' })
export class BalanceEntryEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'bigint' })
  accountId: string;

  @Column({ type: 'text' })
  kind: BalanceEntryKindValue;

  /** The adjustment's uuid, or the message uuid of a charge or refund. */
  @Column({ type: 'text' })
  sourceId: string;

  /** Signed: money in is positive, charges are negative. */
  @Column({ type: 'bigint' })
  amountMicros: string;

  @Column({ type: 'text' })
  currency: string;

  @Column({ type: 'bigint' })
  balanceAfterMicros: string;

  @Column({ type: 'text' })
  reason: string;

  @Column({ type: 'bigint', nullable: true })
  createdBy: string | null;

  @Column({ type: 'timestamptz' })
  createdAt: Date;
}
