import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { ErrorCode, type ErrorBody } from '@switchboard/contracts';
import { AppError } from '../errors/app-error';

const codeForStatus: Record<number, string> = {
  400: ErrorCode.RequestValidation,
  401: ErrorCode.MissingToken,
  403: ErrorCode.NoPermissions,
  404: ErrorCode.NotFound,
  409: ErrorCode.Conflict,
  413: ErrorCode.RequestValidation,
  429: ErrorCode.TooManyRequests,
};

/** Every error leaves as `{ code, message, status, violations? }`; internals are logged, never sent. */
@Catch()
export class ErrorBodyFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const body = toErrorBody(exception);
    if (body.status >= 500) this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    if (res.headersSent) return;
    res.status(body.status).json(body);
  }
}

export function toErrorBody(exception: unknown): ErrorBody {
  if (exception instanceof AppError) return exception.toBody();
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const r = exception.getResponse();
    const message =
      typeof r === 'string' ? r : Array.isArray((r as { message?: unknown }).message) ? ((r as { message: string[] }).message.join('; ')) : String((r as { message?: unknown }).message ?? exception.message);
    // body-parser errors (malformed JSON, payload too large) arrive as HttpExceptions too
    return { code: codeForStatus[status] ?? ErrorCode.General, message, status };
  }
  const e = exception as { type?: string; status?: number; message?: string };
  if (e && e.type === 'entity.parse.failed') return { code: ErrorCode.RequestValidation, message: 'malformed JSON body', status: 400 };
  if (e && e.type === 'entity.too.large') return { code: ErrorCode.RequestValidation, message: 'request body too large', status: 413 };
  return { code: ErrorCode.General, message: 'internal error', status: 500 };
}
