import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ErrorCode, type ErrorBody } from '@switchboard/contracts';
import { Public } from '@switchboard/platform';
import { ReadinessService } from './readiness.service';
import { HealthLiveResponse } from './responses.dto';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  /**
   * Readiness: 200 `{status:'ok'}` once the process reports ready, 503 with the error body before (load
   * balancers, k8s readinessProbe). Answered directly: a starting process is not an error worth logging.
   */
  @ApiOkResponse({ type: HealthLiveResponse, description: 'ready' })
  @ApiServiceUnavailableResponse({ description: 'not ready yet (the error body says why)', schema: { $ref: '#/components/schemas/ErrorBodySchema' } })
  @Get()
  @Public()
  ready(@Res() res: Response): void {
    if (this.readiness.isReady()) {
      res.status(200).json({ status: 'ok' });
      return;
    }
    const body: ErrorBody = { code: ErrorCode.General, message: `not ready (${this.readiness.reasons().join('; ')})`, status: 503 };
    res.status(503).setHeader('Cache-Control', 'no-store').json(body);
  }

  /** Liveness: the process answers HTTP (k8s livenessProbe); readiness is not required. */
  @ApiOkResponse({ type: HealthLiveResponse })
  @Get('live')
  @Public()
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }
}
