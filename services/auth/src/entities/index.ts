import { AccountEntity } from './account.entity';
import { ApiKeyEntity } from './api-key.entity';
import { AuditLogEntity } from './audit-log.entity';
import { InviteEntity } from './invite.entity';
import { LoginChallengeEntity } from './login-challenge.entity';
import { LoginFailureEntity } from './login-failure.entity';
import { MembershipEntity } from './membership.entity';
import { PasswordResetEntity } from './password-reset.entity';
import { RefreshTokenEntity } from './refresh-token.entity';
import { RoleEntity } from './role.entity';
import { SessionFamilyEntity } from './session-family.entity';
import { UserEntity } from './user.entity';

export * from './account.entity';
export * from './api-key.entity';
export * from './audit-log.entity';
export * from './invite.entity';
export * from './login-challenge.entity';
export * from './login-failure.entity';
export * from './membership.entity';
export * from './password-reset.entity';
export * from './refresh-token.entity';
export * from './role.entity';
export * from './session-family.entity';
export * from './user.entity';

export const AUTH_ENTITIES = [
  UserEntity,
  AccountEntity,
  RoleEntity,
  MembershipEntity,
  LoginChallengeEntity,
  LoginFailureEntity,
  SessionFamilyEntity,
  RefreshTokenEntity,
  InviteEntity,
  PasswordResetEntity,
  ApiKeyEntity,
  AuditLogEntity,
];
