import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type LoginFailureScope = 'email' | 'ip';

/** One failed sign-in, counted per email and per client IP over a sliding window (kept in the database so every process sees it). */
@Entity({ name: 'login_failure' })
export class LoginFailureEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'text' })
  scope: LoginFailureScope;

  @Column({ type: 'text' })
  subject: string;

  @Column({ type: 'timestamptz' })
  failedAt: Date;
}
