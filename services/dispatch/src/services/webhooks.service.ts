import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { answerEarly, AppError } from '@switchboard/platform';
import { telegramWebhookSecret } from '../adapters/telegram-bot.adapter';
import type { ProviderReceipt } from '../adapters/provider-adapter';
import { DISPATCH_OPTIONS, type ResolvedDispatchOptions } from '../dispatch.options';
import { ReadModelRepository } from '../repositories/read-model.repository';
import { Dispatcher } from './dispatcher.service';
import { InboundService } from './inbound.service';
import { RoutingService } from './routing.service';
import { StreamChannelCache } from './stream-channel.cache';

export const WEBHOOK_PREFIX = '/api/dispatch/webhooks/';
const MAX_WEBHOOK_BYTES = 1024 * 1024;

type RawRequest = Request & { rawBody?: Buffer };

/** Reads a webhook POST's raw body (bounded), and its JSON, for the signature check over the exact bytes. */
export function captureRawBody(req: RawRequest, res: Response, next: NextFunction): void {
  if (req.method !== 'POST' || !req.url.startsWith(WEBHOOK_PREFIX) || req.rawBody) return next();
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (c: Buffer) => {
    size += c.length;
    if (size > MAX_WEBHOOK_BYTES) {
      res.status(413).json({ code: '0x1', message: 'webhook body too large', status: 413 });
      req.destroy();
      return;
    }
    chunks.push(c);
  });
  req.on('end', () => {
    req.rawBody = Buffer.concat(chunks);
    const type = String(req.headers['content-type'] ?? '');
    try {
      req.body = type.includes('json') && req.rawBody.length ? JSON.parse(req.rawBody.toString('utf8')) : {};
    } catch {
      req.body = null;
    }
    next();
  });
  req.on('error', next);
}

interface WaStatus {
  id?: string;
  status?: string;
  timestamp?: string;
  errors?: Array<{ code?: number; title?: string; message?: string }>;
}
interface WaMessage {
  from?: string;
  id?: string;
  timestamp?: string;
  type?: string;
  text?: { body?: string };
  [kind: string]: unknown;
}
interface WaValue {
  metadata?: { phone_number_id?: string; display_phone_number?: string };
  contacts?: Array<{ wa_id?: string; profile?: { name?: string } }>;
  statuses?: WaStatus[];
  messages?: WaMessage[];
}

/** A Telegram message's media field and the kind it is (a voice note is audio; an animation is a video). */
const TELEGRAM_MEDIA = [
  ['photo', 'image'],
  ['document', 'document'],
  ['voice', 'audio'],
  ['audio', 'audio'],
  ['video', 'video'],
  ['video_note', 'video'],
  ['animation', 'video'],
  ['sticker', 'sticker'],
] as const;

const WA_OUTCOME: Record<string, ProviderReceipt['outcome']> = { sent: 'sent', delivered: 'delivered', read: 'read', failed: 'undelivered' };

/** WhatsApp Cloud API and Telegram Bot API webhooks: verified, then turned into receipts and inbound messages. */
@Injectable()
export class WebhookService {
  private readonly log = new Logger(WebhookService.name);

  constructor(
    @Inject(DISPATCH_OPTIONS) private readonly options: ResolvedDispatchOptions,
    private readonly dispatcher: Dispatcher,
    private readonly inbound: InboundService,
    private readonly routing: RoutingService,
    private readonly readModels: ReadModelRepository,
    private readonly streams: StreamChannelCache,
  ) {}

  /**
   * The webhook's key is a vendor id (the tech provider's app URL) or a stream uid (the URL the streams console
   * shows). A stream uid uses the stream's verify token (from `channel_configured`) and the WhatsApp vendor the
   * stream's messages route to: the app secret is the app's, and receipts are looked up under that vendor.
   */
  private async whatsappTarget(key: string, fresh = false): Promise<{ vendorId: string; appSecret: string; verifyToken: string }> {
    // a notification's stream from memory (docs/decisions/0121): its account and channel are what a post needs; the
    // subscription handshake reads the row afresh, as a verify token changed a moment ago must answer at once
    const stream = /^\d+$/.test(key) ? null : fresh ? await this.readModels.streamChannelByUid(key) : await this.streams.byUid(key);
    if (!/^\d+$/.test(key) && (!stream || stream.channel !== 'whatsapp')) throw AppError.notFound('webhook');
    const isWa = (id: string) => {
      const v = this.routing.vendor(id);
      return v?.adapter === 'whatsapp' && v.active;
    };
    const vendorId = stream
      ? (this.routing.resolve(stream.accountId, 'whatsapp', '', null).vendorIds.find(isWa) ?? this.routing.vendorList().find((v) => isWa(String(v.id)))?.id)
      : key;
    const v = vendorId === undefined ? undefined : this.routing.vendor(String(vendorId));
    if (!v || v.adapter !== 'whatsapp') throw AppError.notFound('webhook');
    const cfg = v.config as { appSecret?: string; verifyToken?: string };
    const appSecret = cfg.appSecret ?? this.options.whatsapp?.appSecret;
    const verifyToken = (stream ? this.streams.openSecrets(stream).verifyToken : undefined) ?? cfg.verifyToken ?? this.options.whatsapp?.verifyToken;
    if (!appSecret || !verifyToken) throw AppError.notFound('webhook');
    return { vendorId: String(v.id), appSecret, verifyToken };
  }

  /** The subscription handshake: echo hub.challenge when hub.verify_token matches. */
  async verifyWhatsApp(key: string, query: Record<string, unknown>): Promise<string> {
    const { verifyToken } = await this.whatsappTarget(key, true);
    const token = typeof query['hub.verify_token'] === 'string' ? query['hub.verify_token'] : '';
    if (query['hub.mode'] !== 'subscribe' || !safeEqual(token, verifyToken)) throw AppError.forbidden('verification failed');
    return String(query['hub.challenge'] ?? '');
  }

  async whatsApp(key: string, req: RawRequest): Promise<void> {
    const { appSecret, vendorId } = await this.whatsappTarget(key);
    const header = String(req.headers['x-hub-signature-256'] ?? '');
    const raw = req.rawBody;
    if (!raw) throw AppError.unauthorized('webhook body unavailable for signature check');
    const expected = `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
    if (!safeEqual(header, expected)) throw AppError.unauthorized('bad X-Hub-Signature-256');
    const body = req.body as { object?: string; entry?: Array<{ changes?: Array<{ value?: WaValue }> }> } | null;
    if (!body || !Array.isArray(body.entry)) throw AppError.validation([{ propertyPath: 'entry', message: 'entry must be an array' }]);
    const work: Array<Promise<void>> = [];
    for (const entry of body.entry) {
      for (const change of entry.changes ?? []) {
        const value = change.value ?? {};
        for (const s of value.statuses ?? []) {
          const outcome = s.status ? WA_OUTCOME[s.status] : undefined;
          if (!s.id || !outcome) continue;
          const err = s.errors?.[0];
          work.push(
            this.dispatcher.receipt({
              vendorId,
              providerMessageId: s.id,
              outcome,
              error: outcome === 'undelivered' ? `${err?.code ?? ''} ${err?.title ?? err?.message ?? 'failed'}`.trim() : null,
              at: s.timestamp ? new Date(Number(s.timestamp) * 1000) : new Date(),
            }),
          );
        }
        for (const m of value.messages ?? []) {
          if (!m.id || !m.from) continue;
          const kind = m.type ?? 'text';
          const media = kind !== 'text' && m[kind] && typeof m[kind] === 'object' ? (m[kind] as Record<string, unknown>) : null;
          const contact = value.contacts?.find((c) => c.wa_id === m.from) ?? value.contacts?.[0];
          work.push(
            this.inbound.receive({
              vendorId,
              channel: 'whatsapp',
              accountPhone: value.metadata?.phone_number_id ?? '',
              contactPhone: `+${m.from.replace(/^\+/, '')}`,
              contactName: contact?.profile?.name ?? null,
              messageType: kind,
              body: m.text?.body ?? (typeof media?.caption === 'string' ? media.caption : ''),
              media,
              providerMessageId: m.id,
              receivedAt: m.timestamp ? new Date(Number(m.timestamp) * 1000) : new Date(),
            }),
          );
        }
      }
    }
    await Promise.all(work);
  }

  async telegram(streamUid: string, req: RawRequest): Promise<void> {
    const key = this.options.telegram?.webhookSecretKey;
    const stream = key ? await this.readModels.streamChannelByUid(streamUid) : null;
    if (!key || !stream || stream.channel !== 'telegram') throw AppError.notFound('webhook');
    const header = String(req.headers['x-telegram-bot-api-secret-token'] ?? '');
    if (!safeEqual(header, telegramWebhookSecret(key, streamUid))) throw AppError.unauthorized('bad X-Telegram-Bot-Api-Secret-Token');
    const update = req.body as {
      update_id?: number;
      message?: { message_id?: number; date?: number; text?: string; caption?: string; chat?: { id?: number | string }; from?: { first_name?: string; last_name?: string; username?: string } } & Partial<Record<(typeof TELEGRAM_MEDIA)[number][0], unknown>>;
    } | null;
    const m = update?.message;
    if (!m || m.chat?.id === undefined || m.message_id === undefined) return; // other update kinds are acknowledged and ignored
    const name = [m.from?.first_name, m.from?.last_name].filter(Boolean).join(' ') || m.from?.username || null;
    const found = TELEGRAM_MEDIA.find(([field]) => m[field] !== undefined && m[field] !== null);
    const mediaKind = found?.[1] ?? null;
    await this.inbound.receive({
      vendorId: null,
      channel: 'telegram',
      accountPhone: stream.sender,
      contactPhone: String(m.chat.id),
      contactName: name,
      messageType: mediaKind ?? 'text',
      body: m.text ?? m.caption ?? '',
      // the Telegram object as received (file_id, sizes, a document's name); dispatch fetches the file when the inbox asks
      media: found ? { [found[1]]: m[found[0]] } : null,
      providerMessageId: `${m.chat.id}:${m.message_id}`,
      receivedAt: m.date ? new Date(m.date * 1000) : new Date(),
      streamUid,
    });
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Provider signatures are over the exact bytes received, so the webhook routes need the raw body. When the app
 * was created with `rawBody: true` Nest keeps it; otherwise this middleware, put in front of the JSON parser,
 * reads webhook bodies itself (the parser then skips them as already read).
 *
 * A provider's notification POST (WhatsApp, Telegram) is also answered here, in front of Express's router
 * (docs/decisions/0127): at an inbound rate of hundreds a second, the router's walk over every service's routes,
 * the body parsers' passes and Nest's pipeline cost more than the handler. Its checks are the handler's own and
 * unchanged (the signature or secret token over the raw body, the 1 MB bound while reading, the stream's account,
 * the number's claim in the group commit), and so are its answers, metric and span (`answerEarly`). The Nest
 * routes of `WebhooksController` stay for what this does not take (another spelling of the path) and the API docs.
 */
@Injectable()
export class WebhookRawBody implements OnModuleInit {
  constructor(
    private readonly host: HttpAdapterHost,
    private readonly webhooks: WebhookService,
  ) {}

  onModuleInit(): void {
    const app = this.host.httpAdapter?.getInstance() as
      | { use: (fn: (req: RawRequest, res: Response, next: NextFunction) => void) => void; router?: { stack: unknown[] }; _router?: { stack: unknown[] } }
      | undefined;
    if (!app || typeof app.use !== 'function') return;
    app.use(notificationRoute(this.webhooks));
    const stack = app.router?.stack ?? app._router?.stack;
    if (stack && stack.length > 1) stack.unshift(stack.pop());
  }
}

/** `POST /api/dispatch/webhooks/{whatsapp|telegram}/{key}` as `WebhooksController` spells it (query allowed). */
const NOTIFICATION_PATH = /^\/api\/dispatch\/webhooks\/(whatsapp|telegram)\/([^/?#]+)\/?(?:\?|$)/;
const NOTIFICATION_ROUTE = { whatsapp: '/api/dispatch/webhooks/whatsapp/:key', telegram: '/api/dispatch/webhooks/telegram/:streamUid' } as const;

/** Reads every webhook POST's raw body; answers the notification POSTs itself (see WebhookRawBody). */
export function notificationRoute(webhooks: WebhookService): (req: RawRequest, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const m = req.method === 'POST' ? NOTIFICATION_PATH.exec(req.url) : null;
    let key: string | null = null;
    if (m) {
      try {
        key = decodeURIComponent(m[2]);
      } catch {
        key = null; // Express answers a malformed escape as it always did
      }
    }
    if (!m || key === null) return captureRawBody(req, res, next);
    const kind = m[1] as 'whatsapp' | 'telegram';
    const ready = key;
    captureRawBody(req, res, (err?: unknown) => {
      if (err) return next(err);
      answerEarly(req, res, next, NOTIFICATION_ROUTE[kind], 200, async () => {
        await (kind === 'whatsapp' ? webhooks.whatsApp(ready, req) : webhooks.telegram(ready, req));
        return { ok: true };
      });
    });
  };
}
