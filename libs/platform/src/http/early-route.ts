import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { httpMetricsMiddleware } from '../metrics/metrics';
import { httpTracingMiddleware } from '../tracing/tracing';
import { toErrorBody } from './exception.filter';
import { requestContextMiddleware } from './http-app';

const logger = new Logger('http');

/**
 * Answers a request in front of Express's router (docs/decisions/0127): for a hot public route whose handler needs
 * no guard, pipe or parser of Nest's (a provider's webhook, which checks its own signature), the router's walk over
 * every service's routes and Nest's pipeline cost more than the handler. What every request gets stays: the request
 * metric and span under `route` (the Nest route's template, so dashboards do not move), `x-request-id` and the
 * request context, the JSON answer `status` / `body` as Nest sends it, and an error as `ErrorBodyFilter` answers it
 * (the same `{ code, message, status }`, a 5xx logged and never detailed).
 */
export function answerEarly(req: Request, res: Response, next: NextFunction, route: string, status: number, handle: () => Promise<unknown>): void {
  (req as Request & { route?: { path: string } }).route = { path: route };
  httpMetricsMiddleware(req, res, () =>
    httpTracingMiddleware(req, res, () =>
      requestContextMiddleware(req, res, () => {
        let running: Promise<unknown>;
        try {
          running = handle();
        } catch (e) {
          running = Promise.reject(e);
        }
        running.then(
          (body) => sendJson(res, status, body),
          (e: unknown) => answerError(res, e, next),
        );
      }),
    ),
  );
}

function answerError(res: Response, e: unknown, next: NextFunction): void {
  const body = toErrorBody(e);
  if (body.status >= 500) logger.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  try {
    sendJson(res, body.status, body);
  } catch (err) {
    next(err);
  }
}

/**
 * The bytes and headers Express's `res.json` sends for an API answer here (no ETag: configureHttpApp turns them off),
 * written directly: its content-type parsing and formatting, charset and freshness checks were half the answer's cost.
 */
function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
