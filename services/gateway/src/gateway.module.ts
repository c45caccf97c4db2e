import { Module, type DynamicModule } from '@nestjs/common';
import { GATEWAY_OPTIONS, type GatewayOptions } from './gateway.options';
import { HealthController } from './health.controller';
import { LangController } from './lang.controller';
import { InboxSocketService } from './inbox-socket/inbox-socket.service';
import { SsoSocketService } from './sso-socket/sso-socket.service';
import { GatewayHttpMounts } from './http-mounts';
import { ReadinessService } from './readiness.service';
import { RealtimeController } from './realtime.controller';
import { RealtimeStreamService } from './realtime/realtime-stream.service';

/**
 * The public HTTP entry: `/realtime` (SSE), `/ws` (the inbox websocket), `/api/health`, the admin build at `/` and its translations at `/api/lang/{locale}.json` (when `adminDistDir` is given)
 * and, in distributed mode with routes, the `/api` reverse proxy. Needs PlatformModule (RealtimeFanout, TokenVerifier).
 */
@Module({})
export class GatewayModule {
  static register(options: GatewayOptions): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [HealthController, LangController, RealtimeController],
      providers: [{ provide: GATEWAY_OPTIONS, useValue: options }, ReadinessService, RealtimeStreamService, GatewayHttpMounts, InboxSocketService, SsoSocketService],
      exports: [ReadinessService, InboxSocketService, SsoSocketService],
    };
  }
}
