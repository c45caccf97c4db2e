import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Availability } from '@switchboard/contracts';

/** An account's override of a country's global settings; a null field means "the global value". */
@Entity({ name: 'country_setting' })
export class CountrySettingEntity {
  @PrimaryColumn({ type: 'bigint' })
  accountId: string;

  @PrimaryColumn({ type: 'bigint' })
  countryId: string;

  @Column({ type: 'jsonb', nullable: true })
  availability: Availability | null;

  @Column({ type: 'text', nullable: true })
  defaultTimezone: string | null;

  /** In the account's currency. Set by super admins only. */
  @Column({ type: 'bigint', nullable: true })
  priceMicros: string | null;

  @Column({ type: 'timestamptz' })
  updatedAt: Date;
}
