import { Module, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import {
  configureHttpApp,
  DevMailbox,
  KafkaEventBus,
  NatsRealtime,
  pemFromEnv,
  PlatformModule,
  ProcessReadiness,
  ServiceHealthModule,
  SmtpMailer,
  TokenVerifier,
  type EventBus,
  type Mailer,
  type RealtimeFanout,
} from '@switchboard/platform';
import { accountsModuleOptionsFromConfig, type AccountsConfig } from './accounts.config';
import { AccountsModule } from './accounts.module';

export interface RunningAccountsService {
  app: NestExpressApplication;
  url: string;
  close: () => Promise<void>;
}

export interface AccountsDriverOverrides {
  bus?: EventBus;
  realtime?: RealtimeFanout;
  mailer?: Mailer;
}

/** The standalone accounts service (distributed mode): Kafka bus, NATS realtime, health endpoints. */
export async function startAccountsService(config: AccountsConfig, opts: { logger?: LogLevel[]; drivers?: AccountsDriverOverrides } = {}): Promise<RunningAccountsService> {
  const bus =
    opts.drivers?.bus ??
    new KafkaEventBus({ clientId: 'accounts', brokers: config.KAFKA_BROKERS, createTopics: config.KAFKA_CREATE_TOPICS, idempotentProducer: config.KAFKA_IDEMPOTENT_PRODUCER });
  const realtime = opts.drivers?.realtime ?? new NatsRealtime({ servers: config.NATS_URL, name: 'accounts' });
  // Without SMTP the requests are still recorded and published; the mailbox only swallows the courtesy mails.
  const mailer = opts.drivers?.mailer ?? (config.SMTP_URL ? new SmtpMailer({ url: config.SMTP_URL, from: config.MAIL_FROM }) : new DevMailbox());

  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime, mailer, verifier: new TokenVerifier(pemFromEnv(config.JWT_PUBLIC_KEY)), databaseUrl: config.DATABASE_URL, processName: 'accounts' }),
      ServiceHealthModule,
      AccountsModule.register(accountsModuleOptionsFromConfig(config)),
    ],
  })
  class AccountsAppModule {}

  const app = await NestFactory.create<NestExpressApplication>(AccountsAppModule, { logger: opts.logger ?? ['error', 'warn', 'log'] });
  try {
    configureHttpApp(app, { trustProxy: config.TRUST_PROXY });
    await app.listen(config.PORT, config.HOST);
  } catch (e) {
    await app.close();
    throw e;
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
