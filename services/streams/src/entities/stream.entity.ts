import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { PublicParams } from '../rules/stream-params';

@Entity({ name: 'stream' })
export class StreamEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'bigint' })
  accountId: string;

  @Column({ type: 'uuid' })
  streamUid: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'smallint' })
  streamType: number;

  @Column({ type: 'smallint' })
  status: number;

  @Column({ type: 'text', nullable: true })
  staticServiceType: string | null;

  @Column({ type: 'text', array: true })
  ipAcl: string[];

  @Column({ type: 'timestamptz', nullable: true })
  lastSentTime: Date | null;

  @Column({ type: 'text', nullable: true })
  sender: string | null;

  @Column({ type: 'text', array: true })
  streamTags: string[];

  @Column({ type: 'boolean' })
  enableSending: boolean;

  @Column({ type: 'boolean' })
  isDefault: boolean;

  @Column({ type: 'jsonb' })
  params: PublicParams;

  /** Sealed JSON of the secret params (auth_token, otp_code). */
  @Column({ type: 'text', nullable: true })
  providerSecret: string | null;

  /** Which secret params are set (the send path checks presence without unsealing). */
  @Column({ type: 'text', array: true })
  providerSecretFields: string[];

  @Column({ type: 'bytea' })
  tokenHash: Buffer;

  @Column({ type: 'text' })
  tokenCipher: string;

  @Column({ type: 'bigint', array: true })
  inboxRoleIds: string[];

  @Column({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz' })
  updatedAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
