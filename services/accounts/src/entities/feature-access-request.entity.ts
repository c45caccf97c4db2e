import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const FeatureRequestStatus = { Pending: 'pending', Granted: 'granted', Declined: 'declined' } as const;
export type FeatureRequestStatusValue = (typeof FeatureRequestStatus)[keyof typeof FeatureRequestStatus];

/** A member's request for a feature of the account; one pending request per account and feature. */
@Entity({ name: 'feature_access_request' })
export class FeatureAccessRequestEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'bigint' })
  accountId: string;

  @Column({ type: 'bigint', nullable: true })
  userId: string | null;

  @Column({ type: 'text', nullable: true })
  email: string | null;

  @Column({ type: 'text' })
  feature: string;

  @Column({ type: 'text' })
  message: string;

  @Column({ type: 'text' })
  status: FeatureRequestStatusValue;

  @Column({ type: 'timestamptz' })
  createdAt: Date;
}
