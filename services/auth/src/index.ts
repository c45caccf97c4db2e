export { AuthModule } from './auth.module';
export { AUTH_CONNECTION, type AuthModuleOptions, type CaptchaChoice, type ZohoSsoOptions } from './auth.options';
export { authConfigSchema, authModuleOptionsFromConfig, loadAuthConfig, type AuthConfig } from './auth.config';
export { CaptchaVerifier, NoCaptchaVerifier, RecaptchaVerifier, GOOGLE_SITEVERIFY_URL, type RecaptchaOptions } from './captcha';
export { Clock, ManualClock, SystemClock } from './clock';
export {
  AuthBootstrapService,
  TENANT_OWNER_ROLE,
  type MembershipInput,
  type NewAccountInput,
  type NewRoleInput,
  type NewUserInput,
  type SeedInput,
  type SeedResult,
} from './services/auth-bootstrap.service';
export { MembershipStatus, ACCOUNT_STATUSES, type AccountStatus, type MembershipStatusValue } from './entities';
export { INBOX_ADMIN_ROLE, INBOX_AGENT_ROLE, INBOX_MANAGER_ROLE, SYSTEM_ROLES } from './rules/system-roles';
export { ACCOUNTS_READ_MODEL_GROUP, AccountsReadModelConsumer } from './consumers/accounts-read-model.consumer';
export { WEBHOOK_DISABLED_MAIL_GROUP, WebhookDisabledMailConsumer } from './consumers/webhook-disabled-mail.consumer';
export { IMPORTED_AGENTS_GROUP, ImportedAgentsConsumer } from './consumers/imported-agents.consumer';
export { AUTH_MIGRATIONS } from './migrations';
export { AUTH_ENTITIES } from './entities';
