import { ErrorCode, type ErrorBody } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';

/** Spec 8: a login failure is 401 with code 1801, whatever went wrong (the message may say which step). */
export const loginFailed = (message = 'invalid credentials'): AppError => new AppError(401, ErrorCode.LoginFailed, message);

/** 429 with the seconds to wait, in the body (`retryAfter`) and in the `Retry-After` header. */
export class RetryLaterError extends AppError {
  constructor(
    message: string,
    readonly retryAfter: number,
  ) {
    super(429, ErrorCode.TooManyRequests, message);
  }

  override toBody(): ErrorBody & { retryAfter: number } {
    return { ...super.toBody(), retryAfter: this.retryAfter };
  }
}

export const invalidRefreshToken = (message = 'invalid refresh token'): AppError => AppError.unauthorized(message, ErrorCode.InvalidToken);
