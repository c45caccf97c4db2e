import { Module, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import {
  configureHttpApp,
  KafkaEventBus,
  NatsRealtime,
  PlatformModule,
  ProcessReadiness,
  ServiceHealthModule,
  SmtpMailer,
  TokenVerifier,
  type EventBus,
  type Mailer,
  type RealtimeFanout,
} from '@switchboard/platform';
import type { AuthConfig } from './auth.config';
import { authModuleOptionsFromConfig } from './auth.config';
import { AuthModule } from './auth.module';
import { AuthBootstrapService } from './services/auth-bootstrap.service';

export interface RunningAuthService {
  app: NestExpressApplication;
  url: string;
  close: () => Promise<void>;
}

export interface AuthDriverOverrides {
  bus?: EventBus;
  realtime?: RealtimeFanout;
  mailer?: Mailer;
}

/** The standalone auth service (distributed mode): Kafka bus, NATS realtime, SMTP mail, health endpoints. */
export async function startAuthService(config: AuthConfig, opts: { logger?: LogLevel[]; drivers?: AuthDriverOverrides } = {}): Promise<RunningAuthService> {
  const bus =
    opts.drivers?.bus ??
    new KafkaEventBus({ clientId: 'auth', brokers: config.KAFKA_BROKERS, createTopics: config.KAFKA_CREATE_TOPICS, idempotentProducer: config.KAFKA_IDEMPOTENT_PRODUCER });
  const realtime = opts.drivers?.realtime ?? new NatsRealtime({ servers: config.NATS_URL, name: 'auth' });
  const mailer = opts.drivers?.mailer ?? new SmtpMailer({ url: config.SMTP_URL, from: config.MAIL_FROM });

  @Module({
    imports: [
      // the private key PEM gives the verifier its public half
      PlatformModule.forRoot({ bus, realtime, mailer, verifier: new TokenVerifier(config.JWT_PRIVATE_KEY), databaseUrl: config.DATABASE_URL, processName: 'auth' }),
      ServiceHealthModule,
      AuthModule.register(authModuleOptionsFromConfig(config)),
    ],
  })
  class AuthAppModule {}

  const app = await NestFactory.create<NestExpressApplication>(AuthAppModule, { logger: opts.logger ?? ['error', 'warn', 'log'] });
  try {
    configureHttpApp(app, { trustProxy: config.TRUST_PROXY });
    await app.listen(config.PORT, config.HOST);
  } catch (e) {
    await app.close();
    throw e;
  }
  if (config.SWITCHBOARD_ADMIN_EMAIL && config.SWITCHBOARD_ADMIN_PASSWORD) {
    await app.get(AuthBootstrapService).seed({
      adminEmail: config.SWITCHBOARD_ADMIN_EMAIL,
      adminPassword: config.SWITCHBOARD_ADMIN_PASSWORD,
      demoAccountName: config.SWITCHBOARD_DEMO_ACCOUNT,
    });
  }
  app.get(ProcessReadiness).markReady();
  const address = app.getHttpServer().address() as { port: number };
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  let closed = false;
  return {
    app,
    url: `http://${host}:${address.port}`,
    close: async () => {
      if (closed) return;
      closed = true;
      await app.close();
    },
  };
}
