import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { AccountStatusValue } from '@switchboard/contracts';

/** A customer (tenant account). Its id is the `accountId` every other service scopes by. */
@Entity({ name: 'customer' })
export class CustomerEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'BY DEFAULT' })
  id: string;

  @Column({ type: 'text', nullable: true })
  customId: string | null;

  @Column({ type: 'uuid' })
  portalId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', nullable: true })
  shortName: string | null;

  /** 0 until a super admin approves the account, then 1 (spec: active 0/1). */
  @Column({ type: 'smallint' })
  active: number;

  @Column({ type: 'text' })
  status: AccountStatusValue;

  /** Micro-units (1e-6) of `currency`; moved only through the ledger (balance_entry). */
  @Column({ type: 'bigint' })
  balanceMicros: string;

  @Column({ type: 'text' })
  currency: string;

  @Column({ type: 'integer' })
  tps: number;

  @Column({ type: 'jsonb' })
  customSettings: Record<string, unknown>;

  @Column({ type: 'jsonb' })
  genSettings: Record<string, unknown>;

  @Column({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz' })
  updatedAt: Date;
}
