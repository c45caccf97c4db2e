import { Logger, Module, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { configureHttpApp, JsonLogger, startTracingFromEnv, NatsRealtime, pemFromEnv, PlatformModule, TokenVerifier, type RealtimeFanout } from '@switchboard/platform';
import type { GatewayConfig } from './gateway.config';
import { GatewayModule } from './gateway.module';
import { RefusingEventBus, RefusingMailer } from './no-op-drivers';
import { ReadinessService } from './readiness.service';

export interface RunningGateway {
  app: NestExpressApplication;
  url: string;
  realtime: RealtimeFanout;
  close: () => Promise<void>;
}

/**
 * The standalone gateway (distributed mode): NATS realtime with a replay buffer, no event bus, the /api proxy to
 * the services named in GATEWAY_ROUTES. Ready as soon as it listens; NATS connects (and reconnects) in the background.
 */
export async function startGateway(config: GatewayConfig, opts: { logger?: LogLevel[] } = {}): Promise<RunningGateway> {
  // OpenTelemetry traces to OTEL_EXPORTER_OTLP_ENDPOINT, when set (docs/decisions/0039-observability.md)
  startTracingFromEnv('gateway');
  const log = new Logger('gateway');
  const realtime = new NatsRealtime({
    servers: config.NATS_URL,
    name: 'gateway',
    replay: config.REALTIME_REPLAY_PER_ACCOUNT > 0 ? { perAccount: config.REALTIME_REPLAY_PER_ACCOUNT } : false,
  });

  @Module({
    imports: [
      PlatformModule.forRoot({
        bus: new RefusingEventBus(),
        realtime,
        mailer: new RefusingMailer(),
        verifier: new TokenVerifier(pemFromEnv(config.JWT_PUBLIC_KEY)),
        databaseUrl: '',
        processName: 'gateway',
        followAccounts: false,
        roles: { http: true, consumers: false, relay: false, schedulers: false },
      }),
      GatewayModule.register({
        mode: 'distributed',
        routes: config.GATEWAY_ROUTES,
        adminDistDir: config.ADMIN_DIST_DIR,
        proxy: { timeoutMs: config.GATEWAY_PROXY_TIMEOUT_MS },
        realtime: { heartbeatMs: config.REALTIME_HEARTBEAT_MS },
      }),
    ],
  })
  class GatewayAppModule {}

  let app: NestExpressApplication;
  try {
    app = await NestFactory.create<NestExpressApplication>(GatewayAppModule, { logger: opts.logger ?? new JsonLogger('gateway') });
    configureHttpApp(app, { trustProxy: config.TRUST_PROXY === 'false' ? false : config.TRUST_PROXY });
    await app.listen(config.PORT, config.HOST);
  } catch (e) {
    await realtime.close();
    throw e;
  }
  app.get(ReadinessService).markReady();
  void realtime.ready().then((ok) => ok && log.log(`realtime on NATS ${config.NATS_URL.join(', ')}`));

  const address = app.getHttpServer().address() as { port: number };
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  let closed = false;
  return {
    app,
    url: `http://${host}:${address.port}`,
    realtime,
    close: async () => {
      if (closed) return;
      closed = true;
      // PlatformModule closes the realtime driver on shutdown.
      await app.close();
    },
  };
}
