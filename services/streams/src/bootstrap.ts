import { Module, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import {
  configureHttpApp,
  KafkaEventBus,
  NatsRealtime,
  DevMailbox,
  PlatformModule,
  ProcessReadiness,
  ServiceHealthModule,
  TokenVerifier,
  type EventBus,
  type RealtimeFanout,
} from '@switchboard/platform';
import { streamsModuleOptionsFromConfig, type StreamsConfig } from './streams.config';
import { StreamsModule } from './streams.module';

export interface RunningStreamsService {
  app: NestExpressApplication;
  url: string;
  close: () => Promise<void>;
}

/** The standalone streams service (distributed mode): Kafka bus, NATS realtime, health endpoints. */
export async function startStreamsService(
  config: StreamsConfig,
  opts: { logger?: LogLevel[]; drivers?: { bus?: EventBus; realtime?: RealtimeFanout } } = {},
): Promise<RunningStreamsService> {
  const bus =
    opts.drivers?.bus ??
    new KafkaEventBus({ clientId: 'streams', brokers: config.KAFKA_BROKERS, createTopics: config.KAFKA_CREATE_TOPICS, idempotentProducer: config.KAFKA_IDEMPOTENT_PRODUCER });
  const realtime = opts.drivers?.realtime ?? new NatsRealtime({ servers: config.NATS_URL, name: 'streams' });

  @Module({
    imports: [
      PlatformModule.forRoot({ bus, realtime, mailer: new DevMailbox(), verifier: new TokenVerifier(config.JWT_PUBLIC_KEY), databaseUrl: config.DATABASE_URL, processName: 'streams' }),
      ServiceHealthModule,
      StreamsModule.register(streamsModuleOptionsFromConfig(config)),
    ],
  })
  class StreamsAppModule {}

  const app = await NestFactory.create<NestExpressApplication>(StreamsAppModule, { logger: opts.logger ?? ['error', 'warn', 'log'] });
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
