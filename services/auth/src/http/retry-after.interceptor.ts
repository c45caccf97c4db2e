import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { catchError, type Observable } from 'rxjs';
import { RetryLaterError } from '../errors';

/** Adds `Retry-After` to 429 answers; the platform's error filter writes the body. */
@Injectable()
export class RetryAfterInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((e: unknown) => {
        if (e instanceof RetryLaterError) context.switchToHttp().getResponse<Response>().setHeader('Retry-After', String(e.retryAfter));
        throw e;
      }),
    );
  }
}
