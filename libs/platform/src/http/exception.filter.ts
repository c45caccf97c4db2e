import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
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
    if (res.headersSent) {
      // Too late for an error body (a stream broke half-way): end the response rather than leave it hanging.
      if (!res.writableEnded) res.end();
      return;
    }
    res.status(body.status).json(body);
  }
}

export function toErrorBody(exception: unknown): ErrorBody {
  if (exception instanceof AppError) return exception.toBody();
  const fromParser = bodyParserError(exception);
  if (fromParser) return fromParser.toBody();
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    // A 500 is never meant for the caller; other 5xx (503 not ready) are deliberate.
    if (status === 500) return { code: ErrorCode.General, message: 'internal error', status };
    const r = exception.getResponse();
    const message =
      typeof r === 'string' ? r : Array.isArray((r as { message?: unknown }).message) ? ((r as { message: string[] }).message.join('; ')) : String((r as { message?: unknown }).message ?? exception.message);
    return { code: codeForStatus[status] ?? ErrorCode.General, message, status };
  }
  return { code: ErrorCode.General, message: 'internal error', status: 500 };
}

/**
 * body-parser's errors (http-errors with a `type`) as AppErrors. They must be caught by an Express error handler
 * placed right after the parsers: past it, Nest turns a JSON SyntaxError into a BadRequestException that carries
 * the parser's message and can no longer be told apart.
 */
export function bodyParserError(e: unknown): AppError | null {
  if (!e || typeof e !== 'object') return null;
  const { type, status, expose } = e as { type?: unknown; status?: unknown; expose?: unknown };
  if (typeof type !== 'string') return null;
  if (type === 'entity.parse.failed') return new AppError(400, ErrorCode.RequestValidation, 'malformed JSON body');
  if (type === 'entity.too.large') return new AppError(413, ErrorCode.RequestValidation, 'request body too large');
  if (type === 'parameters.too.many') return new AppError(413, ErrorCode.RequestValidation, 'too many parameters');
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') return new AppError(415, ErrorCode.RequestValidation, 'unsupported body encoding');
  if (expose === true && typeof status === 'number' && status >= 400 && status < 500) return new AppError(status, ErrorCode.RequestValidation, 'invalid request body');
  return null;
}

/** Express error middleware for right after the body parsers (see bodyParserError). */
export function bodyParserErrorHandler(err: unknown, _req: Request, _res: Response, next: NextFunction): void {
  next(bodyParserError(err) ?? err);
}
