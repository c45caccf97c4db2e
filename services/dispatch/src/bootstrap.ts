import { Module, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { configureHttpApp, JsonLogger, startTracingFromEnv, DevMailbox, KafkaEventBus, NatsRealtime, PlatformModule, ProcessReadiness, ServiceHealthModule, TokenVerifier, type EventBus, type RealtimeFanout } from '@switchboard/platform';
import { dispatchModuleOptionsFromConfig, type DispatchConfig } from './dispatch.config';
import { DispatchModule } from './dispatch.module';
import { dispatchKafkaConsumerTuning } from './dispatch.options';

export interface RunningDispatchService {
  app: NestExpressApplication;
  url: string;
  close: () => Promise<void>;
}

/** The standalone dispatch service (distributed mode): Kafka bus, NATS realtime, health endpoints. Scales out by consumer group. */
export async function startDispatchService(config: DispatchConfig, opts: { logger?: LogLevel[]; drivers?: { bus?: EventBus; realtime?: RealtimeFanout } } = {}): Promise<RunningDispatchService> {
  // OpenTelemetry traces to OTEL_EXPORTER_OTLP_ENDPOINT, when set (docs/decisions/0039-observability.md)
  startTracingFromEnv('dispatch');
  const bus =
    opts.drivers?.bus ??
    new KafkaEventBus({
      clientId: 'dispatch',
      brokers: config.KAFKA_BROKERS,
      createTopics: config.KAFKA_CREATE_TOPICS,
      idempotentProducer: config.KAFKA_IDEMPOTENT_PRODUCER,
      compression: config.KAFKA_COMPRESSION,
      // Fetches large enough for a chunk of DISPATCH_INGEST_CONCURRENCY accepted events per partition (~700 B each),
      // and a short wait so a quiet topic still moves.
      consumer: { ...dispatchKafkaConsumerTuning, partitionsConsumedConcurrently: config.KAFKA_PARTITIONS_CONCURRENTLY, maxWaitTimeMs: 100, maxBytesPerPartition: 2 * 1024 * 1024 },
    });
  const realtime = opts.drivers?.realtime ?? new NatsRealtime({ servers: config.NATS_URL, name: 'dispatch' });
  const roles = new Set(config.PROCESS_ROLES);

  @Module({
    imports: [
      PlatformModule.forRoot({
        bus,
        realtime,
        // dispatch sends no mail; the platform module wants a mailer
        mailer: new DevMailbox(),
        verifier: new TokenVerifier(config.JWT_PUBLIC_KEY),
        databaseUrl: config.DATABASE_URL,
        processName: 'dispatch',
        roles: { http: roles.has('http'), consumers: roles.has('consumers'), relay: roles.has('relay'), schedulers: roles.has('schedulers') },
      }),
      ServiceHealthModule,
      DispatchModule.register(dispatchModuleOptionsFromConfig(config)),
    ],
  })
  class DispatchAppModule {}

  const app = await NestFactory.create<NestExpressApplication>(DispatchAppModule, { logger: opts.logger ?? new JsonLogger('dispatch'), rawBody: true });
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
