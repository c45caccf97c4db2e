import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const AuditAction = {
  LoginAs: 'login_as',
  LoginAsExit: 'login_as_exit',
  MemberRolesChanged: 'member_roles_changed',
  MemberStatusChanged: 'member_status_changed',
  MemberRemoved: 'member_removed',
  PasswordChanged: 'password_changed',
  PasswordReset: 'password_reset',
  ApiKeyCreated: 'api_key_created',
  ApiKeyRegenerated: 'api_key_regenerated',
  ApiKeyDeleted: 'api_key_deleted',
  UserDisabled: 'user_disabled',
  UserEnabled: 'user_enabled',
} as const;
export type AuditActionValue = (typeof AuditAction)[keyof typeof AuditAction];

/** Who did what to whom, in which account, from where. Append-only. */
@Entity({ name: 'audit_log' })
export class AuditLogEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'bigint', nullable: true })
  accountId: string | null;

  @Column({ type: 'bigint', nullable: true })
  actorId: string | null;

  @Column({ type: 'bigint', nullable: true })
  targetId: string | null;

  @Column({ type: 'text' })
  action: AuditActionValue;

  @Column({ type: 'timestamptz' })
  at: Date;

  @Column({ type: 'text', nullable: true })
  ip: string | null;

  @Column({ type: 'jsonb' })
  details: Record<string, unknown>;
}
