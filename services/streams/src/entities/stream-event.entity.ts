import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'stream_event' })
export class StreamEventEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'bigint' })
  accountId: string;

  @Column({ type: 'bigint' })
  streamId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  text: string;

  @Column({ type: 'text' })
  eventKey: string;

  @Column({ type: 'boolean' })
  active: boolean;

  @Column({ type: 'timestamptz' })
  createdAt: Date;
}
