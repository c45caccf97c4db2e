import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Availability } from '@switchboard/contracts';

/** A country with its global settings (super admin): sending hours, default time zone, price per SMS segment. */
@Entity({ name: 'country' })
export class CountryEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'BY DEFAULT' })
  id: string;

  @Column({ type: 'text' })
  iso2: string;

  @Column({ type: 'text' })
  iso3: string;

  @Column({ type: 'text' })
  numericCode: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'jsonb' })
  availability: Availability;

  /** IANA id, one of the country's zones. */
  @Column({ type: 'text' })
  defaultTimezone: string;

  /** Minutes between the westernmost and easternmost standard offsets. */
  @Column({ type: 'integer' })
  timezonesGap: number;

  @Column({ type: 'bigint', nullable: true })
  priceMicros: string | null;

  @Column({ type: 'text' })
  priceCurrency: string;

  @Column({ type: 'timestamptz' })
  updatedAt: Date;
}
