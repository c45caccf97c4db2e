import { Logger, Module, type DynamicModule, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { TokenVerifier, pemFromEnv } from '../auth/tokens';
import { ConfigError } from '../config/config';
import { EventBus } from '../bus/event-bus';
import { failoverConsumerTuning, KafkaEventBus, type KafkaCompression } from '../bus/kafka-event-bus';
import { ProcessReadiness, ServiceHealthModule } from '../health/health';
import { configureHttpApp } from '../http/http-app';
import { JsonLogger } from '../http/json-logger';
import { startTracingFromEnv } from '../tracing/tracing';
import { DevMailbox, Mailer } from '../mail/mailer';
import { NatsRealtime } from '../realtime/nats-realtime';
import { RealtimeFanout } from '../realtime/realtime';
import { PlatformModule, type ProcessRoles } from './platform.module';

/** The settings every standalone service reads from its environment (see each service's `*.config.ts`). */
export interface StandaloneServiceConfig {
  PORT: number;
  HOST: string;
  DATABASE_URL: string;
  KAFKA_BROKERS: string[];
  KAFKA_CREATE_TOPICS: boolean;
  KAFKA_IDEMPOTENT_PRODUCER: boolean;
  /** Default gzip. */
  KAFKA_COMPRESSION?: KafkaCompression;
  NATS_URL: string[];
  TRUST_PROXY: string;
}

export interface StandaloneDrivers {
  bus?: EventBus;
  realtime?: RealtimeFanout;
  mailer?: Mailer;
}

export interface StandaloneServiceOptions {
  /** Process and Kafka client name: `auth`, `accounts`, ... */
  name: string;
  config: StandaloneServiceConfig;
  /** PEM (or base64 PEM) of the key that verifies access tokens; auth passes its private key. */
  verificationKey: string;
  /** The service's own module. */
  module: DynamicModule;
  /** Default: a mailbox that keeps mail in memory (services that send none). */
  mailer?: Mailer;
  roles?: Partial<ProcessRoles>;
  logger?: LogLevel[];
  /** Test seams: in-memory drivers instead of Kafka and NATS. */
  drivers?: StandaloneDrivers;
  /** Runs after the server listens and before the process reports ready (e.g. seeding). */
  afterListen?: (app: NestExpressApplication) => Promise<void>;
}

export interface RunningService {
  app: NestExpressApplication;
  url: string;
  close: () => Promise<void>;
}

/**
 * Distributed mode, one service per process: the Kafka bus, NATS realtime, the service's module, health endpoints
 * (`/api/health` readiness, `/api/health/live` liveness), the common HTTP setup.
 */
export async function startStandaloneService(o: StandaloneServiceOptions): Promise<RunningService> {
  // OpenTelemetry traces to OTEL_EXPORTER_OTLP_ENDPOINT, when set (docs/decisions/0039-observability.md)
  startTracingFromEnv(o.name);
  const c = o.config;
  const bus =
    o.drivers?.bus ??
    new KafkaEventBus({ clientId: o.name, brokers: c.KAFKA_BROKERS, createTopics: c.KAFKA_CREATE_TOPICS, idempotentProducer: c.KAFKA_IDEMPOTENT_PRODUCER, compression: c.KAFKA_COMPRESSION, consumer: failoverConsumerTuning });
  const realtime = o.drivers?.realtime ?? new NatsRealtime({ servers: c.NATS_URL, name: o.name });
  const mailer = o.drivers?.mailer ?? o.mailer ?? new DevMailbox();

  @Module({
    imports: [
      PlatformModule.forRoot({
        bus,
        realtime,
        mailer,
        verifier: new TokenVerifier(pemFromEnv(o.verificationKey)),
        databaseUrl: c.DATABASE_URL,
        processName: o.name,
        roles: o.roles,
      }),
      ServiceHealthModule,
      o.module,
    ],
  })
  class StandaloneAppModule {}

  const app = await NestFactory.create<NestExpressApplication>(StandaloneAppModule, { logger: o.logger ?? new JsonLogger(o.name) });
  try {
    configureHttpApp(app, { trustProxy: c.TRUST_PROXY });
    await app.listen(c.PORT, c.HOST);
    if (o.afterListen) await o.afterListen(app);
  } catch (e) {
    await app.close();
    throw e;
  }
  app.get(ProcessReadiness).markReady();
  const address = app.getHttpServer().address() as { port: number };
  const host = c.HOST === '0.0.0.0' || c.HOST === '::' ? '127.0.0.1' : c.HOST;
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

/**
 * The `main` of a standalone process: loads the config, starts, logs where it listens, and on SIGINT/SIGTERM closes
 * once and exits. A bad configuration prints the ConfigError's list of bad variables and exits 1.
 */
export function runStandalone<C extends { HOST: string; PORT: number }>(name: string, load: () => C, start: (config: C) => Promise<{ close: () => Promise<void> }>): void {
  const log = new Logger(name);
  const main = async () => {
    const config = load();
    const service = await start(config);
    log.log(`listening on ${config.HOST}:${config.PORT}`);
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.log(`${signal}: stopping`);
      service
        .close()
        .then(() => process.exit(0))
        .catch((e: unknown) => {
          log.error(e);
          process.exit(1);
        });
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  };
  main().catch((e: unknown) => {
    console.error(e instanceof ConfigError ? e.message : e);
    process.exit(1);
  });
}
