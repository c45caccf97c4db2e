import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@switchboard/platform';
import { OtpService, type OtpRequestAnswer, type OtpVerifyAnswer } from '../services/otp.service';
import { SendService } from '../services/send.service';
import { StreamAuthService } from '../services/stream-auth.service';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

/**
 * The stream API customers call from their own code. Public for the platform guard: it authenticates the stream
 * token itself (Authorization header) and applies the stream's IP ACL.
 */
@ApiTags('stream API')
@ApiHeader({ name: 'Authorization', description: 'the stream token', required: true })
@Controller('streams')
export class StreamApiController {
  constructor(
    private readonly auth: StreamAuthService,
    private readonly sends: SendService,
    private readonly otp: OtpService,
  ) {}

  /**
   * The hot path (docs/decisions/0016-stream-api-group-commit.md): the answer is written here, not by Express's
   * res.json, which would hash it for an ETag that no client revalidates a POST with. Errors still go through the
   * exception filter.
   */
  @Post('messages') @Public() @HttpCode(202) @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'the same answer is replayed for 24 h' })
  async send(@Headers('authorization') token: string | undefined, @Headers('idempotency-key') key: string | undefined, @Body() body: unknown, @Res() res: Response): Promise<void> {
    const r = await this.sends.send(await this.auth.authenticate(token), body, { idempotencyKey: key ?? null });
    const json = JSON.stringify(r.body);
    res.writeHead(202, r.replayed ? { ...JSON_HEADERS, 'content-length': Buffer.byteLength(json), 'idempotent-replayed': 'true' } : { ...JSON_HEADERS, 'content-length': Buffer.byteLength(json) });
    res.end(json);
  }

  @Post('otp/request') @Public() @HttpCode(202)
  async otpRequest(@Headers('authorization') token: string | undefined, @Body() body: unknown): Promise<OtpRequestAnswer> { return this.otp.request(await this.auth.authenticate(token), body); }

  @Post('otp/verify') @Public() @HttpCode(200)
  async otpVerify(@Headers('authorization') token: string | undefined, @Body() body: unknown): Promise<OtpVerifyAnswer> { return this.otp.verify(await this.auth.authenticate(token), body); }
}
