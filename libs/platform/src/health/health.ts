import { Controller, Get, Global, Injectable, Module, Optional, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../http/decorators';
import { EventBus } from '../bus/event-bus';

/**
 * Readiness of the process: set once migrations, seeding and HTTP are up, and (Kafka) once every consumer group of the
 * process has joined its group, so a rolling update retires old replicas only when the new ones consume. Liveness only
 * says the loop runs.
 */
@Injectable()
export class ProcessReadiness {
  private ready = false;
  private reason = 'starting';

  constructor(@Optional() private readonly bus?: EventBus) {}
  markReady(): void {
    this.ready = true;
    this.reason = 'ready';
  }
  markNotReady(reason: string): void {
    this.ready = false;
    this.reason = reason;
  }
  status(): { ready: boolean; reason: string } {
    if (!this.ready) return { ready: false, reason: this.reason };
    const groups = this.bus?.consumersJoined() ?? { joined: true, waiting: [] };
    if (!groups.joined) return { ready: false, reason: `waiting for consumer groups to join: ${groups.waiting.join(', ') || 'the bus is not running'}` };
    return { ready: true, reason: this.reason };
  }
}

@Controller('health')
export class ServiceHealthController {
  constructor(private readonly readiness: ProcessReadiness) {}

  /** Readiness probe: 200 once ready, 503 before. */
  @Get()
  @Public()
  health(@Res() res: Response): void {
    const s = this.readiness.status();
    res.status(s.ready ? 200 : 503).json({ status: s.ready ? 'ok' : 'starting', reason: s.reason });
  }

  /** Liveness probe. */
  @Get('live')
  @Public()
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }
}

/** Health endpoints for a standalone service process (the gateway has its own for the whole platform). */
@Global()
@Module({ providers: [ProcessReadiness], controllers: [ServiceHealthController], exports: [ProcessReadiness] })
export class ServiceHealthModule {}
