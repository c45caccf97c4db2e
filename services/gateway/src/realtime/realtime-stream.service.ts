import { Inject, Injectable, Logger, Optional, type OnModuleDestroy } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ErrorCode, type RealtimeMessage } from '@switchboard/contracts';
import { AppError, bearerToken, RealtimeFanout, RevocationList, TokenVerifier, type RevocableClaims } from '@switchboard/platform';
import { GATEWAY_OPTIONS, type GatewayOptions } from '../gateway.options';
import { SseStream, type ResyncReason } from './sse-stream';
import { parseTopics, REALTIME_TOPICS, topicPatterns } from './topics';

const ACCOUNT_ID = /^[\w-]{1,64}$/;
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface RealtimeRequest {
  accountId: string;
  topics: string[];
  lastEventId: string | null;
  /** Token expiry (epoch seconds). */
  expiresAt: number;
  /** The token's identity, to close the stream when its session or user is revoked. */
  claims: RevocableClaims;
}

/**
 * `/realtime`: server-sent events of the caller's account. The account comes from the access token only; topics
 * select `rt.<account>.<topic>` and everything under it, so no parameter can reach another account's subjects.
 */
@Injectable()
export class RealtimeStreamService implements OnModuleDestroy {
  private readonly logger = new Logger('Realtime');
  private readonly open = new Set<() => void>();
  private readonly heartbeatMs: number;
  private readonly maxQueue: number;
  private readonly retryMs: number;
  private readonly closeOnTokenExpiry: boolean;

  constructor(
    private readonly realtime: RealtimeFanout,
    private readonly verifier: TokenVerifier,
    @Inject(GATEWAY_OPTIONS) options: GatewayOptions,
    @Optional() private readonly revocations?: RevocationList,
  ) {
    this.heartbeatMs = options.realtime?.heartbeatMs ?? 15_000;
    this.maxQueue = options.realtime?.maxQueue ?? 1000;
    this.retryMs = options.realtime?.retryMs ?? 3000;
    this.closeOnTokenExpiry = options.realtime?.closeOnTokenExpiry ?? true;
  }

  /** Open streams, for tests and metrics. */
  get connections(): number {
    return this.open.size;
  }

  /** Reads and checks what the client asked for; throws the error body before any byte of the stream is sent. */
  parse(req: Request): RealtimeRequest {
    // EventSource cannot set headers: the event stream is one of the few routes taking ?access_token=
    const token = bearerToken(req, { allowQuery: true });
    if (!token) throw AppError.unauthorized('missing token', ErrorCode.MissingToken);
    const claims = this.verifier.verifyAccess(token);
    this.revocations?.assertNotRevoked(claims);
    if (!claims.acc) throw AppError.unauthorized('the token carries no account', ErrorCode.InvalidJwt);
    const accountId = String(claims.acc);
    if (!ACCOUNT_ID.test(accountId)) throw AppError.unauthorized('invalid token', ErrorCode.InvalidJwt);
    const q = req.query as Record<string, unknown>;
    for (const name of ['accountId', 'account']) {
      const named = q[name];
      if (named !== undefined && String(named) !== accountId) throw AppError.forbidden('realtime events of another account', ErrorCode.AccessDenied);
    }
    const topics = parseTopics(q.topic, accountId, REALTIME_TOPICS);
    // The header wins: the browser sends it on automatic reconnects, while the URL keeps the id of the first connect.
    const header = req.headers['last-event-id'];
    const fromQuery = q.lastEventId ?? q.lastEventID;
    const raw = typeof header === 'string' && header ? header : typeof fromQuery === 'string' && fromQuery ? fromQuery : null;
    if (raw !== null && raw.length > 128) throw AppError.validation([{ propertyPath: 'lastEventId', message: 'too long' }]);
    return { accountId, topics, lastEventId: raw, expiresAt: claims.exp, claims: { sub: claims.sub, acc: claims.acc, sid: claims.sid, iat: claims.iat } };
  }

  async stream(req: Request, res: Response, r: RealtimeRequest): Promise<void> {
    const patterns = r.topics.flatMap((t) => topicPatterns(r.accountId, t));
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-store, no-transform');
    res.setHeader('Connection', 'keep-alive');
    // nginx and similar proxies buffer responses unless told not to.
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    req.socket.setTimeout(0);
    req.socket.setNoDelay(true);

    const sse = new SseStream(res, this.maxQueue, () =>
      this.logger.warn(`slow realtime client of account ${r.accountId}: dropping its oldest messages`),
    );

    const unsubscribes: Array<() => Promise<void>> = [];
    const timers: NodeJS.Timeout[] = [];
    let removeGapListener: () => void = () => undefined;
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      this.open.delete(close);
      timers.forEach((t) => clearTimeout(t));
      removeGapListener();
      removeRevocationListener();
      sse.close();
      for (const u of unsubscribes.splice(0)) u().catch((e: unknown) => this.logger.warn(`unsubscribe failed: ${String(e)}`));
    };
    // A revoked session or user loses its live channel at once (docs/decisions/0029); the reconnect is refused.
    const removeRevocationListener =
      this.revocations?.onRevoked((rev) => {
        if (!RevocationList.concerns(rev, r.claims)) return;
        sse.notice('revoked', { code: ErrorCode.InvalidJwt, message: 'this session has been revoked: sign in again', status: 401 });
        close();
      }) ?? (() => undefined);
    this.open.add(close);
    res.on('close', close);
    res.on('error', close);

    // Subscribe before reading the replay buffer, holding live messages back, so nothing falls between the two.
    let live = false;
    const early: RealtimeMessage[] = [];
    const replayed = new Set<string>();
    const onMessage = (m: RealtimeMessage) => {
      if (closed) return;
      if (!live) {
        early.push(m);
        return;
      }
      if (replayed.delete(m.id)) return;
      sse.send(m);
    };

    try {
      for (const p of patterns) {
        const unsubscribe = await this.realtime.subscribe(p, onMessage);
        if (closed) {
          await unsubscribe();
          return;
        }
        unsubscribes.push(unsubscribe);
      }
      // Written once subscribed: from here on nothing published is missed (clients and tests may rely on it).
      sse.writeRaw(`retry: ${this.retryMs}\n: connected\n\n`);
      if (r.lastEventId) {
        const replay = await this.realtime.replay(r.accountId, r.lastEventId, patterns);
        if (!replay.complete) sse.notice('warning', { reason: 'history_unavailable' satisfies ResyncReason, resync: true });
        for (const m of replay.messages) {
          replayed.add(m.id);
          sse.send(m);
        }
      }
    } catch (e) {
      this.logger.error(`cannot open realtime stream for account ${r.accountId}: ${e instanceof Error ? e.message : String(e)}`);
      sse.notice('error', { code: ErrorCode.General, message: 'realtime is unavailable', status: 503 });
      close();
      return;
    }
    live = true;
    for (const m of early.splice(0)) onMessage(m);

    removeGapListener = this.realtime.onGap(() => sse.notice('warning', { reason: 'interrupted' satisfies ResyncReason, resync: true }));
    const heartbeat = setInterval(() => sse.writeRaw(': heartbeat\n\n'), this.heartbeatMs);
    timers.push(heartbeat);
    if (this.closeOnTokenExpiry) {
      const ms = Math.min(Math.max(r.expiresAt * 1000 - Date.now(), 0), MAX_TIMER_MS);
      timers.push(
        setTimeout(() => {
          sse.notice('token_expired', { code: ErrorCode.InvalidJwt, message: 'token expired: reconnect with a fresh token', status: 401 });
          close();
        }, ms),
      );
    }
  }

  /** Ends every stream so the HTTP server can close; browsers reconnect (with Last-Event-ID) to another instance. */
  onModuleDestroy(): void {
    for (const close of [...this.open]) close();
  }
}
