import { Controller, Get, Global, Injectable, Module, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../http/decorators';

/** Readiness of the process: set once migrations, seeding and consumers are up. Liveness only says the loop runs. */
@Injectable()
export class ProcessReadiness {
  private ready = false;
  private reason = 'starting';
  markReady(): void {
    this.ready = true;
    this.reason = 'ready';
  }
  markNotReady(reason: string): void {
    this.ready = false;
    this.reason = reason;
  }
  status(): { ready: boolean; reason: string } {
    return { ready: this.ready, reason: this.reason };
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
