import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_URL, ensureSchema, serviceDataSourceOptions } from '@switchboard/platform';
import { AUTH_CONNECTION, AUTH_OPTIONS, createCaptchaVerifier, createClock, resolveAuthOptions, type AuthModuleOptions } from './auth.options';
import { CaptchaVerifier } from './captcha';
import { Clock } from './clock';
import { LoginController } from './controllers/login.controller';
import { UserController } from './controllers/user.controller';
import { AUTH_ENTITIES } from './entities';
import { AUTH_MIGRATIONS } from './migrations';
import {
  AccountRepository,
  LoginChallengeRepository,
  LoginFailureRepository,
  MembershipRepository,
  RoleRepository,
  SessionRepository,
  UserRepository,
} from './repositories';
import { AccessService } from './services/access.service';
import { AuthBootstrapService } from './services/auth-bootstrap.service';
import { AuthOutboxRelay, AuthUnitOfWork } from './services/auth-events.service';
import { LoginService } from './services/login.service';
import { PasswordService } from './services/password.service';
import { ProfileService } from './services/profile.service';
import { ThrottleService } from './services/throttle.service';
import { TokenService } from './services/token.service';

/**
 * Users, sign-in (password + emailed PIN), tokens, the account read model, roles and memberships.
 * Needs PlatformModule.forRoot (DATABASE_URL, Mailer, EventBus, TokenVerifier with the matching public key).
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
      controllers: [LoginController, UserController],
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
        AuthOutboxRelay,
        AuthUnitOfWork,
        PasswordService,
        ThrottleService,
        AccessService,
        TokenService,
        LoginService,
        ProfileService,
        AuthBootstrapService,
      ],
      exports: [AuthBootstrapService],
    };
  }
}
