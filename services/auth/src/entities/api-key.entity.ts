import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** An account's API key. The key itself is shown once; only its SHA-256 and a short prefix (for recognition) are kept. */
@Entity({ name: 'api_key' })
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'bigint' })
  accountId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  keyPrefix: string;

  @Column({ type: 'text' })
  keyHash: string;

  /** Normalised CIDRs (`10.0.0.0/8`, `2001:db8::/32`, single addresses as /32 or /128); empty: any address. */
  @Column({ type: 'text', array: true })
  ipAcl: string[];

  @Column({ type: 'text', array: true })
  permissions: string[];

  @Column({ type: 'boolean' })
  active: boolean;

  @Column({ type: 'bigint', nullable: true })
  createdBy: string | null;

  @Column({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz' })
  updatedAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}
