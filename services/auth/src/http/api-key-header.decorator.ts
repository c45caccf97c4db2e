import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** The API key of a request: `X-Api-Key`, or `Authorization: Bearer sk_...`. */
export const ApiKeyHeader = createParamDecorator((_: unknown, ctx: ExecutionContext): string | null => {
  const req = ctx.switchToHttp().getRequest<Request>();
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header.trim()) return header.trim();
  const auth = req.headers.authorization;
  const m = auth ? /^Bearer\s+(sk_\S+)\s*$/i.exec(auth) : null;
  return m ? m[1] : null;
});
