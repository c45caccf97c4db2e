import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiHeader, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiErrors, Public, type DocumentedError } from '@switchboard/platform';
import { OtpService, type OtpRequestAnswer, type OtpVerifyAnswer } from '../services/otp.service';
import { SendService } from '../services/send.service';
import { StreamAuthService } from '../services/stream-auth.service';
import { OtpRequestResponse, OtpVerifyResponse } from '../dtos/responses.dto';
import { OtpRequestDto, OtpVerifyDto, StreamMessageAcceptedResponse, StreamMessageDto } from '../dtos/stream-api.dto';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

/** What every stream API call can answer besides 400 0x1 and the token errors (for the OpenAPI document). */
const SEND_ERRORS: DocumentedError[] = [
  { status: 400, code: '0x17', message: 'invalid argument: a blocked keyword, a sender that is not approved, or no price for the destination country' },
  { status: 402, code: '0x41', message: 'payment required: the balance does not cover this message' },
  { status: 403, code: '0x16', message: 'this address is banned after repeated invalid stream tokens' },
  { status: 403, code: '0x21', message: 'the stream is unavailable: disabled, restricted, sending off, or the account is not approved' },
  { status: 409, code: '0x19', message: 'duplicate message: the same text went to this destination within the duplicate window' },
  { status: 409, code: '0x22', message: 'the stream is not ready (draft)' },
  { status: 409, code: '0x23', message: 'the stream has no provider settings yet (token, business id or phone number)' },
  { status: 429, code: '0x30', message: 'the account has no sending rate (TPS) set, or its daily message limit is reached' },
  { status: 429, code: '0x31', message: 'TPS limit reached (10/s for the account)' },
];

/**
 * The stream API customers call from their own code. Public for the platform guard: it authenticates the stream
 * token itself (Authorization header) and applies the stream's IP ACL.
 */
@ApiTags('stream API')
@ApiHeader({ name: 'Authorization', description: 'the stream token, as the whole header value (no "Bearer"); GET /api/streams/token/{id} shows it', required: true, example: 'sbs_3CW4qTuc-UmAstAW3tcX6aYh13ztDsIY' })
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
  @ApiBody({ type: StreamMessageDto })
  @ApiAcceptedResponse({ type: StreamMessageAcceptedResponse, description: 'queued for sending; the same answer is replayed for a repeated Idempotency-Key (header Idempotent-Replayed: true)' })
  @ApiErrors(...SEND_ERRORS, { status: 422, code: '0x17', message: 'this Idempotency-Key was used with a different request' })
  @Post('messages') @Public() @HttpCode(202) @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'the same answer is replayed for 24 h', example: 'order-1234' })
  async send(@Headers('authorization') token: string | undefined, @Headers('idempotency-key') key: string | undefined, @Body() body: unknown, @Res() res: Response): Promise<void> {
    const r = await this.sends.send(await this.auth.authenticate(token), body, { idempotencyKey: key ?? null });
    const json = JSON.stringify(r.body);
    res.writeHead(202, r.replayed ? { ...JSON_HEADERS, 'content-length': Buffer.byteLength(json), 'idempotent-replayed': 'true' } : { ...JSON_HEADERS, 'content-length': Buffer.byteLength(json) });
    res.end(json);
  }

  @ApiBody({ type: OtpRequestDto })
  @ApiAcceptedResponse({ type: OtpRequestResponse })
  @ApiErrors(...SEND_ERRORS, { status: 400, code: '0x17', message: 'this is not an OTP stream' }, { status: 429, code: '0x32', message: 'too many codes requested for this number or from this address' })
  @Post('otp/request') @Public() @HttpCode(202)
  async otpRequest(@Headers('authorization') token: string | undefined, @Body() body: unknown): Promise<OtpRequestAnswer> { return this.otp.request(await this.auth.authenticate(token), body); }

  @ApiBody({ type: OtpVerifyDto })
  @ApiOkResponse({ type: OtpVerifyResponse })
  @ApiErrors({ status: 400, code: '0x17', message: 'wrong or expired code' }, { status: 429, code: '0x33', message: 'too many wrong codes: try again after the cool-down' })
  @Post('otp/verify') @Public() @HttpCode(200)
  async otpVerify(@Headers('authorization') token: string | undefined, @Body() body: unknown): Promise<OtpVerifyAnswer> { return this.otp.verify(await this.auth.authenticate(token), body); }
}
