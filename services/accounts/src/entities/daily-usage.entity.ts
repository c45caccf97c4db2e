import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Messages (and SMS segments) an account's streams accepted on one UTC day. */
@Entity({ name: 'daily_usage' })
export class DailyUsageEntity {
  @PrimaryColumn({ type: 'bigint' })
  accountId: string;

  @PrimaryColumn({ type: 'date' })
  day: string;

  @Column({ type: 'bigint' })
  messages: string;

  @Column({ type: 'bigint' })
  segments: string;
}
