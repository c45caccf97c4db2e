import { ErrorCode, type ErrorBody, type Violation } from '@switchboard/contracts';

/** The one error type services throw; the HTTP filter turns it into `{ code, message, status, violations? }`. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | number,
    message: string,
    readonly violations?: Violation[],
  ) {
    super(message);
    this.name = 'AppError';
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, status: this.status, ...(this.violations ? { violations: this.violations } : {}) };
  }

  static validation(violations: Violation[], message = 'request validation failed'): AppError {
    return new AppError(400, ErrorCode.RequestValidation, message, violations);
  }
  static notFound(what = 'resource'): AppError {
    return new AppError(404, ErrorCode.NotFound, `${what} not found`);
  }
  static forbidden(message = 'you do not have the permission for this action', code: string | number = ErrorCode.NoPermissions): AppError {
    return new AppError(403, code, message);
  }
  static unauthorized(message = 'authentication required', code: string | number = ErrorCode.MissingToken): AppError {
    return new AppError(401, code, message);
  }
  static conflict(message: string, code: string | number = ErrorCode.Conflict): AppError {
    return new AppError(409, code, message);
  }
  static tooMany(message: string, code: string | number = ErrorCode.TooManyRequests): AppError {
    return new AppError(429, code, message);
  }
}
