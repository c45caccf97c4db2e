import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** An IANA zone used in a country (spec: Timezone id, countryCode, name, country). A zone of several countries has one row each. */
@Entity({ name: 'timezone' })
export class TimezoneEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'BY DEFAULT' })
  id: string;

  @Column({ type: 'bigint' })
  countryId: string;

  @Column({ type: 'text' })
  countryCode: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'integer' })
  utcOffset: number;

  @Column({ type: 'integer' })
  dstOffset: number;
}
