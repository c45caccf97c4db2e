import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { RoleType } from '@switchboard/contracts';

/** A named set of permission strings. `accountId` null marks a system role shared by every account. */
@Entity({ name: 'role' })
export class RoleEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'bigint', nullable: true })
  accountId: string | null;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'text' })
  roleType: RoleType;

  @Column({ type: 'text', array: true })
  permissions: string[];

  @Column({ type: 'boolean' })
  readOnly: boolean;

  @Column({ type: 'boolean' })
  isDeleted: boolean;

  @Column({ type: 'timestamptz' })
  createdAt: Date;

  /** Listing order after read-only first: the system roles' spec order, 100 for custom roles. */
  @Column({ type: 'smallint', default: 100 })
  sortRank: number;
}
