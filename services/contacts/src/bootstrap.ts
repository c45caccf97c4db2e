import { Module, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import {
  configureHttpApp,
  DevMailbox,
  KafkaEventBus,
  NatsRealtime,
  PlatformModule,
  ProcessReadiness,
  ServiceHealthModule,
  TokenVerifier,
  type EventBus,
  type RealtimeFanout,
} from '@switchboard/platform';
import type { ContactsConfig } from './contacts.config';
import { contactsModuleOptionsFromConfig } from './contacts.config';
import { ContactsModule } from './contacts.module';

export interface RunningContactsService {
  app: NestExpressApplication;
  url: string;
  close: () => Promise<void>;
}

/** The standalone contacts service (distributed mode): Kafka bus, NATS realtime, health endpoints. */
export async function startContactsService(config: ContactsConfig, opts: { logger?: LogLevel[]; drivers?: { bus?: EventBus; realtime?: RealtimeFanout } } = {}): Promise<RunningContactsService> {
  const bus =
    opts.drivers?.bus ??
    new KafkaEventBus({ clientId: 'contacts', brokers: config.KAFKA_BROKERS, createTopics: config.KAFKA_CREATE_TOPICS, idempotentProducer: config.KAFKA_IDEMPOTENT_PRODUCER });
  const realtime = opts.drivers?.realtime ?? new NatsRealtime({ servers: config.NATS_URL, name: 'contacts' });
  const roles = new Set(config.PROCESS_ROLES);

  @Module({
    imports: [
      PlatformModule.forRoot({
        bus,
        realtime,
        // contacts sends no mail
        mailer: new DevMailbox(),
        verifier: new TokenVerifier(config.JWT_PUBLIC_KEY),
        databaseUrl: config.DATABASE_URL,
        processName: 'contacts',
        roles: { http: roles.has('http'), consumers: roles.has('consumers'), relay: roles.has('relay'), schedulers: roles.has('schedulers') },
      }),
      ServiceHealthModule,
      ContactsModule.register(contactsModuleOptionsFromConfig(config)),
    ],
  })
  class ContactsAppModule {}

  const app = await NestFactory.create<NestExpressApplication>(ContactsAppModule, { logger: opts.logger ?? ['error', 'warn', 'log'] });
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
