import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A person who signs in. Not tenant-owned: a user reaches accounts through memberships. */
@Entity({ name: 'app_user' })
export class UserEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  /** Stored lower-cased and trimmed; unique. */
  @Column({ type: 'text' })
  email: string;

  @Column({ type: 'text' })
  passwordHash: string;

  @Column({ type: 'text' })
  firstName: string;

  @Column({ type: 'text' })
  lastName: string;

  @Column({ type: 'text', nullable: true })
  timezone: string | null;

  /** Spec 3 preference keys; the API sends them as a JSON string. */
  @Column({ type: 'jsonb' })
  preferences: Record<string, unknown>;

  @Column({ type: 'boolean' })
  superAdmin: boolean;

  /** A disabled user cannot sign in (answers like wrong credentials). */
  @Column({ type: 'boolean' })
  active: boolean;

  @Column({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz' })
  updatedAt: Date;
}
