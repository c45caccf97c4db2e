import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_URL, ensureSchema, serviceDataSourceOptions } from '@switchboard/platform';
import { AUTH_CONNECTION, AUTH_OPTIONS, createCaptchaVerifier, createClock, resolveAuthOptions, type AuthModuleOptions } from './auth.options';
import { CaptchaVerifier } from './captcha';
import { Clock } from './clock';
import { ImportedAgentsConsumer } from './consumers/imported-agents.consumer';
import { AccountsReadModelConsumer } from './consumers/accounts-read-model.consumer';
import { RevocationMirrorConsumer, RevocationSnapshotLoader } from './consumers/revocation-mirror.consumer';
import { WebhookDisabledMailConsumer } from './consumers/webhook-disabled-mail.consumer';
import { ApiKeyController } from './controllers/api-key.controller';
import { InviteController } from './controllers/invite.controller';
import { LoginAsController } from './controllers/login-as.controller';
import { LoginController } from './controllers/login.controller';
import { PasswordController } from './controllers/password.controller';
import { RoleController } from './controllers/role.controller';
import { TeamController } from './controllers/team.controller';
import { UserController } from './controllers/user.controller';
import { SsoController } from './controllers/sso.controller';
import { SsoService } from './sso/sso.service';
import { AUTH_ENTITIES } from './entities';
import { AUTH_MIGRATIONS } from './migrations';
import {
  AccountRepository,
  ApiKeyRepository,
  AuditLogRepository,
  InviteRepository,
  LoginChallengeRepository,
  LoginFailureRepository,
  MembershipRepository,
  PasswordResetRepository,
  RoleRepository,
  SessionRepository,
  UserRepository,
} from './repositories';
import { AccessService } from './services/access.service';
import { ActorService } from './services/actor.service';
import { ApiKeyService } from './services/api-key.service';
import { InviteService } from './services/invite.service';
import { LoginAsService } from './services/login-as.service';
import { MemberEvents } from './services/member-events.service';
import { PasswordResetService } from './services/password-reset.service';
import { RoleService } from './services/role.service';
import { TeamNotifier } from './services/team-notifier.service';
import { TeamService } from './services/team.service';
import { AuthBootstrapService } from './services/auth-bootstrap.service';
import { AuthOutboxRelay, AuthUnitOfWork } from './services/auth-events.service';
import { LoginService } from './services/login.service';
import { PasswordService } from './services/password.service';
import { ProfileService } from './services/profile.service';
import { ThrottleService } from './services/throttle.service';
import { TokenService } from './services/token.service';

/**
 * Users, sign-in (password + emailed PIN), tokens, roles and permissions, team members and invites, password
 * reset, login-as, API keys, and the account read model fed by the accounts service's events.
 * Needs PlatformModule.forRoot (DATABASE_URL, Mailer, EventBus, RealtimeFanout, TokenVerifier with the matching
 * public key, PROCESS_ROLES).
 */
@Module({})
export class AuthModule {
  static register(options: AuthModuleOptions): DynamicModule {
    const resolved = resolveAuthOptions(options);
    return {
      module: AuthModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: AUTH_CONNECTION,
          inject: [DATABASE_URL],
          useFactory: async (url: string) => {
            await ensureSchema(url, 'auth');
            return {
              ...serviceDataSourceOptions({
                name: AUTH_CONNECTION,
                url,
                schema: 'auth',
                entities: AUTH_ENTITIES,
                migrations: AUTH_MIGRATIONS,
                migrationsRun: resolved.migrationsRun,
              }),
              // fail fast: the embedded server and the tests would otherwise wait half a minute on a bad URL
              retryAttempts: 1,
              retryDelay: 500,
            };
          },
        }),
        TypeOrmModule.forFeature(AUTH_ENTITIES, AUTH_CONNECTION),
      ],
      // UserController before TeamController: GET /users/connected and /users/async before GET /users/:id
      controllers: [LoginController, UserController, PasswordController, TeamController, RoleController, InviteController, LoginAsController, ApiKeyController, SsoController],
      providers: [
        { provide: AUTH_OPTIONS, useValue: resolved },
        { provide: Clock, useValue: createClock(options) },
        { provide: CaptchaVerifier, useValue: createCaptchaVerifier(options.captcha) },
        UserRepository,
        AccountRepository,
        RoleRepository,
        MembershipRepository,
        LoginChallengeRepository,
        LoginFailureRepository,
        SessionRepository,
        InviteRepository,
        PasswordResetRepository,
        ApiKeyRepository,
        AuditLogRepository,
        AuthOutboxRelay,
        AuthUnitOfWork,
        PasswordService,
        ThrottleService,
        AccessService,
        TokenService,
        LoginService,
        ProfileService,
        ActorService,
        MemberEvents,
        TeamNotifier,
        RoleService,
        TeamService,
        InviteService,
        PasswordResetService,
        LoginAsService,
        ApiKeyService,
        SsoService,
        AccountsReadModelConsumer,
        ImportedAgentsConsumer,
        RevocationMirrorConsumer,
        WebhookDisabledMailConsumer,
        RevocationSnapshotLoader,
        AuthBootstrapService,
      ],
      exports: [AuthBootstrapService],
    };
  }
}
