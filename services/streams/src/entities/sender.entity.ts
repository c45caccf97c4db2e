import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'sender' })
export class SenderEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'bigint' })
  accountId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  value: string;

  @Column({ type: 'text' })
  type: string;

  @Column({ type: 'text', nullable: true })
  country: string | null;

  /** 0 pending, 1 approved, 2 declined (spec 4). */
  @Column({ type: 'smallint' })
  approved: number;

  @Column({ type: 'text', nullable: true })
  declinedReason: string | null;

  @Column({ type: 'jsonb' })
  defaultMetadata: Record<string, unknown>;

  @Column({ type: 'timestamptz' })
  createdAt: Date;
}
