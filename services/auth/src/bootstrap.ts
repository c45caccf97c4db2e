import type { LogLevel } from '@nestjs/common';
import { SmtpMailer, startStandaloneService, type RunningService, type StandaloneDrivers } from '@switchboard/platform';
import type { AuthConfig } from './auth.config';
import { authModuleOptionsFromConfig } from './auth.config';
import { AuthModule } from './auth.module';
import { AuthBootstrapService } from './services/auth-bootstrap.service';

export type RunningAuthService = RunningService;
export type AuthDriverOverrides = StandaloneDrivers;

/** The standalone auth service (distributed mode): Kafka bus, NATS realtime, SMTP mail, health endpoints. */
export function startAuthService(config: AuthConfig, opts: { logger?: LogLevel[]; drivers?: AuthDriverOverrides } = {}): Promise<RunningAuthService> {
  return startStandaloneService({
    name: 'auth',
    config,
    // the private key PEM gives the verifier its public half
    verificationKey: config.JWT_PRIVATE_KEY,
    module: AuthModule.register(authModuleOptionsFromConfig(config)),
    mailer: new SmtpMailer({ url: config.SMTP_URL, from: config.MAIL_FROM }),
    afterListen: async (app) => {
      // the first super administrator of a new deployment
      if (config.SWITCHBOARD_ADMIN_EMAIL && config.SWITCHBOARD_ADMIN_PASSWORD) {
        await app.get(AuthBootstrapService).seed({
          adminEmail: config.SWITCHBOARD_ADMIN_EMAIL,
          adminPassword: config.SWITCHBOARD_ADMIN_PASSWORD,
          demoAccountName: config.SWITCHBOARD_DEMO_ACCOUNT,
        });
      }
    },
    ...opts,
  });
}
