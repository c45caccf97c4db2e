import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import * as jwt from 'jsonwebtoken';
import { bearerToken } from '@switchboard/platform';

/**
 * The session family (`sid`) of the caller's access token. The platform's Principal does not carry it, so it is
 * read from the token the global guard has already verified on this request (decoding only, no second check).
 */
export const CurrentSessionId = createParamDecorator((_: unknown, ctx: ExecutionContext): string | null => {
  const token = bearerToken(ctx.switchToHttp().getRequest<Request>());
  const payload = token ? jwt.decode(token) : null;
  return payload && typeof payload === 'object' && typeof payload.sid === 'string' ? payload.sid : null;
});
