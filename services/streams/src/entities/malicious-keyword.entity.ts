import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The global list (not tenant-owned): super admins keep it, every send is checked against it. */
@Entity({ name: 'malicious_keyword' })
export class MaliciousKeywordEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'text' })
  word: string;

  @Column({ type: 'smallint' })
  type: number;

  @Column({ type: 'timestamptz' })
  createdAt: Date;
}
