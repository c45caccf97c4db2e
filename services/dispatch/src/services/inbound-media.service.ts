import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ErrorCode, MEDIA_MAX_BYTES, type MediaKindValue } from '@switchboard/contracts';
import { AppError, DestinationGuard, DestinationRefused, PinnedResponseTooLarge, PROCESS_ROLES, RequestContext, requestPinned, type ProcessRoles } from '@switchboard/platform';
import { DISPATCH_CONNECTION, DISPATCH_OPTIONS, type ResolvedDispatchOptions } from '../dispatch.options';
import { ReadModelRepository } from '../repositories/read-model.repository';
import { rowsOf } from '../repositories/rows';
import { RoutingService } from './routing.service';
import { StreamChannelCache } from './stream-channel.cache';

/** The bytes of an inbound message's media as the provider handed them over, with what the provider said of them. */
export interface InboundMedia {
  bytes: Buffer;
  /** The type the provider claims (the inbox reads the type from the bytes itself). */
  providerMime: string | null;
  fileName: string | null;
}

type Json = Record<string, unknown>;

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
const DEFAULT_KEEP_FOR_MS = 90 * 86_400_000;
const DEFAULT_MAX_TOTAL_BYTES = 10 * 1024 ** 3;
const DEFAULT_PRUNE_EVERY_MS = 60_000;

const gone = () => new AppError(404, ErrorCode.NotFound, 'the provider no longer has this media', [{ propertyPath: 'media', message: 'mediaGone', code: 'mediaGone' }]);
const tooLarge = (max: number) => new AppError(413, ErrorCode.RequestValidation, `the media is larger than ${max} bytes`, [{ propertyPath: 'media', message: 'fileTooLarge', code: 'fileTooLarge' }]);
/** Never the URL (a Telegram file URL carries the bot token) nor the provider's answer: what failed, in words. */
/** The provider handed over a download URL on a private, link-local or metadata address: never fetched. */
const refused = () => new AppError(502, ErrorCode.General, 'the provider handed over a media address that is not public', [{ propertyPath: 'media', message: 'providerUnavailable', code: 'providerUnavailable' }]);
const unreachable = (what: string) => new AppError(502, ErrorCode.General, `the provider did not hand over the media: ${what}`, [{ propertyPath: 'media', message: 'providerUnavailable', code: 'providerUnavailable' }]);

/**
 * Inbound media (docs/decisions/0045): dispatch holds the provider tokens (sealed from streams, opened in memory only,
 * docs/decisions/0021), so it is dispatch that fetches an inbound message's media from the provider, when the inbox
 * asks with the agent's token: WhatsApp Cloud API `GET /{media-id}` -> `url` -> `GET url` with the bearer token;
 * Telegram `getFile` -> `file_path` -> `GET /file/bot<token>/<file_path>`. Bounded by a deadline and a size (the
 * declared size is checked first, the bytes as they come). Tokens and URLs never reach a log or an error.
 */
/** The kinds whose files are kept in the background (locations and contact cards arrive whole in the message). */
const KEPT_KINDS: readonly string[] = ['image', 'video', 'document', 'audio', 'sticker'];
/** What WhatsApp keeps a customer's media for: past it, a keep that never succeeded gives up. */
const PROVIDER_RETENTION_MS = 30 * 24 * 3600_000;
const MAX_RETRY_MS = 10 * 60_000;

interface MessageRow {
  uuid: string;
  channel: string;
  vendor_id: string | null;
  stream_uid: string;
  message_type: string;
  media: Json | null;
  media_state?: string | null;
  media_attempts?: number;
  received_at?: Date;
}

/** Whether an inbound message carries a provider file to keep (`media_state` pending when it is stored). */
export function keepsMedia(channel: string, messageType: string, media: Json | null): boolean {
  if (!media || !KEPT_KINDS.includes(messageType)) return false;
  if (channel === 'whatsapp') return typeof media.id === 'string';
  if (channel === 'telegram') return telegramFile(media) !== null;
  return false;
}

/**
 * Inbound media (docs/decisions/0045, 0053): dispatch holds the provider tokens (sealed from streams, opened in memory
 * only, docs/decisions/0021), so it is dispatch that fetches an inbound message's media from the provider: WhatsApp
 * Cloud API `GET /{media-id}` -> `url` -> `GET url` with the bearer token; Telegram `getFile` -> `file_path` ->
 * `GET /file/bot<token>/<file_path>`. Bounded by a deadline and a size (the declared size is checked first, the bytes
 * as they come). Tokens and URLs never reach a log or an error.
 *
 * Kept in the background: a message with a file is stored `pending`, and the keeper (processes with the schedulers
 * role) fetches it soon after, at most `keepConcurrency` at once, within the kind's size limit, into
 * `dispatch.inbound_media_kept`; an outage is retried with a backoff (5 s doubling to 10 min) until the provider's
 * 30-day retention is over; a file the provider no longer has, or over the limit, is marked so and not asked again.
 * The inbox's read (`GET /api/dispatch/inbound_media/{uuid}`) is answered from what was kept, else from the provider.
 */
@Injectable()
export class InboundMediaService implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger(InboundMediaService.name);
  /** Keeps in flight in this process, by message uuid. */
  private readonly keeping = new Map<string, Promise<void>>();
  private timer?: NodeJS.Timeout;
  private claiming = false;
  private again = false;
  private stopped = false;
  private pruning?: Promise<unknown>;
  private prunedAt = 0;
  /** Download URLs the provider hands over (WhatsApp's media URL) must be public addresses (libs/platform net). */
  private readonly guard: DestinationGuard;

  constructor(
    @InjectDataSource(DISPATCH_CONNECTION) private readonly ds: DataSource,
    @Inject(DISPATCH_OPTIONS) private readonly options: ResolvedDispatchOptions,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly readModels: ReadModelRepository,
    private readonly routing: RoutingService,
    private readonly streams: StreamChannelCache,
  ) {
    this.guard = new DestinationGuard({ allowLoopback: options.inboundMedia?.allowLoopback ?? false, allowedPorts: 'any', dnsServers: [] });
  }

  onModuleInit(): void {
    if (!this.roles.schedulers) return;
    this.timer = setInterval(() => this.kick(), this.options.inboundMedia?.keepPollMs ?? 1000);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.allSettled([...this.keeping.values(), this.pruning]);
  }

  /** Looks for files to keep now (after storing a message with one) rather than at the next poll. */
  kick(): void {
    if (!this.roles.schedulers || this.stopped) return;
    this.pruneWhenDue();
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = true;
    void this.claim()
      .catch((e: unknown) => this.log.warn(`inbound media keeper: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => {
        this.claiming = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Takes what is due, up to the free places (a lease of a few minutes: another replica leaves it alone meanwhile). */
  private async claim(): Promise<void> {
    const room = Math.max(1, this.options.inboundMedia?.keepConcurrency ?? 2) - this.keeping.size;
    if (room <= 0) return;
    const rows = rowsOf<MessageRow>(await this.ds.query(
      `UPDATE dispatch.inbound_message m SET media_next_at = now() + interval '5 minutes'
        WHERE m.id IN (SELECT id FROM dispatch.inbound_message WHERE media_state = 'pending' AND media_next_at <= now() ORDER BY media_next_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING m.uuid::text, m.channel, m.vendor_id::text, m.stream_uid::text, m.message_type, m.media, m.media_attempts, m.received_at`,
      [room],
    ));
    for (const row of rows) {
      const run = this.keep(row)
        .catch((e: unknown) => this.log.warn(`inbound media ${row.uuid}: not kept (${e instanceof Error ? e.message : String(e)})`))
        .finally(() => {
          this.keeping.delete(row.uuid);
          this.kick();
        });
      this.keeping.set(row.uuid, run);
    }
  }

  /** Prunes at most every `pruneEveryMs` (one prune at a time in this process; replicas' prunes only delete). */
  private pruneWhenDue(): void {
    const every = this.options.inboundMedia?.pruneEveryMs ?? DEFAULT_PRUNE_EVERY_MS;
    if (this.pruning || Date.now() - this.prunedAt < every) return;
    this.prunedAt = Date.now();
    this.pruning = this.prune()
      .catch((e: unknown) => this.log.warn(`inbound media pruning: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => (this.pruning = undefined));
  }

  /**
   * Deletes kept bytes older than `keepForMs`, then the oldest kept past `maxTotalBytes` in total (the newest are
   * kept), and marks their messages `pruned`: a later read asks the provider again, which may still have the file.
   * The inbox keeps its own copy from the first read (docs/decisions/0045), so what is pruned here is a file nobody
   * opened in that time. Answers how many files were pruned.
   */
  async prune(): Promise<number> {
    const keepFor = this.options.inboundMedia?.keepForMs ?? DEFAULT_KEEP_FOR_MS;
    const maxTotal = this.options.inboundMedia?.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES;
    const mark = (picked: string) => `WITH gone AS (DELETE FROM dispatch.inbound_media_kept k USING (${picked}) p WHERE k.message_uuid = p.message_uuid RETURNING k.message_uuid)
      UPDATE dispatch.inbound_message m SET media_state = 'pruned' FROM gone WHERE m.uuid = gone.message_uuid AND m.media_state = 'kept'`;
    let pruned = 0;
    // by age, in slices (the index on kept_at): a large backlog never holds one long transaction
    for (;;) {
      const r = (await this.ds.query(mark(`SELECT message_uuid FROM dispatch.inbound_media_kept WHERE kept_at < now() - make_interval(secs => $1::float8 / 1000) ORDER BY kept_at LIMIT 1000`), [keepFor])) as [unknown, number];
      pruned += r[1];
      if (r[1] < 1000) break;
    }
    // by the total: everything past the newest `maxTotal` bytes (sizes only: the bytes are not read)
    const r = (await this.ds.query(
      mark(`SELECT message_uuid FROM (SELECT message_uuid, sum(size) OVER (ORDER BY kept_at DESC, message_uuid DESC) AS running FROM dispatch.inbound_media_kept) t WHERE running > $1`),
      [maxTotal],
    )) as [unknown, number];
    pruned += r[1];
    if (pruned) this.log.log(`inbound media: pruned ${pruned} kept file(s)`);
    return pruned;
  }

  private async keep(row: MessageRow): Promise<void> {
    const ceiling = this.options.inboundMedia?.maxBytes ?? DEFAULT_MAX_BYTES;
    const max = Math.min(MEDIA_MAX_BYTES[row.message_type as MediaKindValue] ?? ceiling, ceiling);
    let kept: InboundMedia;
    try {
      kept = await this.fromProvider(row, max);
    } catch (e) {
      if (e instanceof DestinationRefused) {
        this.log.warn(`inbound media ${row.uuid} (${row.channel}): the provider handed over an address that is not public; not fetched`);
        await this.ds.query(`UPDATE dispatch.inbound_message SET media_state = 'refused', media_next_at = NULL WHERE uuid = $1`, [row.uuid]);
        return;
      }
      const status = e instanceof AppError ? e.status : 502;
      const expired = row.received_at ? Date.now() - new Date(row.received_at).getTime() > PROVIDER_RETENTION_MS : false;
      if (status === 404 || status === 413 || expired) {
        await this.ds.query(`UPDATE dispatch.inbound_message SET media_state = $2, media_next_at = NULL WHERE uuid = $1`, [row.uuid, status === 413 ? 'too_large' : 'gone']);
        return;
      }
      const attempts = (row.media_attempts ?? 0) + 1;
      const wait = Math.min((this.options.inboundMedia?.keepRetryMs ?? 5000) * 2 ** (attempts - 1), MAX_RETRY_MS);
      await this.ds.query(`UPDATE dispatch.inbound_message SET media_attempts = $2, media_next_at = now() + make_interval(secs => $3::float8 / 1000) WHERE uuid = $1`, [row.uuid, attempts, wait]);
      return;
    }
    await this.ds.query(
      `WITH k AS (
         INSERT INTO dispatch.inbound_media_kept (message_uuid, account_id, bytes, provider_mime, file_name, size)
         SELECT uuid, account_id, $2, $3, $4, $5 FROM dispatch.inbound_message WHERE uuid = $1 ON CONFLICT (message_uuid) DO NOTHING
       )
       UPDATE dispatch.inbound_message SET media_state = 'kept', media_next_at = NULL WHERE uuid = $1`,
      [row.uuid, kept.bytes, kept.providerMime, kept.fileName, kept.bytes.length],
    );
    this.pruneWhenDue();
  }

  async fetch(messageUuid: string, maxQuery: unknown): Promise<InboundMedia> {
    const accountId = RequestContext.accountId();
    const ceiling = this.options.inboundMedia?.maxBytes ?? DEFAULT_MAX_BYTES;
    let max = ceiling;
    if (maxQuery !== undefined && maxQuery !== '') {
      const n = Number(maxQuery);
      if (!Number.isInteger(n) || n < 1) throw AppError.validation([{ propertyPath: 'max', message: 'a positive number of bytes' }]);
      max = Math.min(n, ceiling);
    }
    if (!/^[0-9a-f-]{36}$/i.test(messageUuid)) throw AppError.notFound('inbound message');
    const [row] = await this.ds.query<MessageRow[]>(
      `SELECT uuid::text, channel, vendor_id::text, stream_id::text, stream_uid::text, message_type, media, media_state FROM dispatch.inbound_message WHERE uuid = $1 AND account_id = $2`,
      [messageUuid, accountId],
    );
    if (!row || !row.media) throw AppError.notFound('inbound media');
    // a keep of it in flight here: its outcome rather than a second fetch from the provider
    const running = this.keeping.get(messageUuid);
    if (running) await running;
    const [kept] = await this.ds.query<Array<{ bytes: Buffer; provider_mime: string | null; file_name: string | null; state: string | null }>>(
      `SELECT k.bytes, k.provider_mime, k.file_name, m.media_state AS state FROM dispatch.inbound_message m LEFT JOIN dispatch.inbound_media_kept k ON k.message_uuid = m.uuid WHERE m.uuid = $1`,
      [messageUuid],
    );
    if (kept?.bytes) {
      if (kept.bytes.length > max) throw tooLarge(max);
      return { bytes: kept.bytes, providerMime: kept.provider_mime, fileName: kept.file_name };
    }
    if (kept?.state === 'gone') throw gone();
    if (kept?.state === 'refused') throw refused();
    if (kept?.state === 'too_large' && max <= Math.min(MEDIA_MAX_BYTES[row.message_type as MediaKindValue] ?? ceiling, ceiling)) throw tooLarge(max);
    try {
      return await this.fromProvider(row, max);
    } catch (e) {
      if (e instanceof DestinationRefused) throw refused();
      throw e;
    }
  }

  /** The bytes from the provider, with the stream's token. */
  private async fromProvider(row: MessageRow, max: number): Promise<InboundMedia> {
    if (!row.media) throw AppError.notFound('inbound media');
    const stream = await this.readModels.streamChannelByUid(row.stream_uid);
    if (!stream) throw gone();
    const secrets = this.streams.openSecrets(stream);
    const timeoutMs = this.options.inboundMedia?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const deadline = AbortSignal.timeout(timeoutMs);
    const deadlineAt = Date.now() + timeoutMs;
    try {
      if (row.channel === 'whatsapp') return await this.whatsApp(row.media, row.vendor_id, secrets.accessToken, max, deadline, deadlineAt);
      if (row.channel === 'telegram') return await this.telegram(row.media, secrets.botToken, max, deadline);
    } catch (e) {
      if (e instanceof AppError || e instanceof DestinationRefused) throw e;
      const timedOut = deadline.aborted || (e instanceof Error && e.name === 'TimeoutError');
      this.log.warn(`inbound media ${row.uuid} (${row.channel}): ${timedOut ? 'no answer in time' : 'provider unreachable'}`);
      throw unreachable(timedOut ? 'no answer in time' : 'unreachable');
    }
    throw AppError.notFound('inbound media');
  }

  private async whatsApp(media: Json, vendorId: string | null, streamToken: string | undefined, max: number, signal: AbortSignal, deadlineAt: number): Promise<InboundMedia> {
    const id = typeof media.id === 'string' ? media.id : null;
    if (!id) throw AppError.notFound('inbound media');
    const v = vendorId ? this.routing.vendor(vendorId) : this.routing.vendorList().find((x) => x.adapter === 'whatsapp' && x.active);
    const cfg = (v?.adapter === 'whatsapp' ? v.config : {}) as { baseUrl?: string; apiVersion?: string; accessToken?: string };
    const base = (cfg.baseUrl ?? this.options.whatsapp?.baseUrl ?? 'https://graph.facebook.com').replace(/\/$/, '');
    const version = cfg.apiVersion ?? this.options.whatsapp?.apiVersion ?? 'v21.0';
    const token = streamToken ?? cfg.accessToken ?? this.options.whatsapp?.accessToken;
    if (!token) throw unreachable('no access token for this stream');
    const auth = { authorization: `Bearer ${token}` };
    const meta = await fetch(`${base}/${version}/${encodeURIComponent(id)}`, { headers: auth, signal });
    const info = (await meta.json().catch(() => ({}))) as { url?: string; mime_type?: string; file_size?: number | string };
    // Graph answers an unknown or expired media id with 404, or 400 code 100 "does not exist"
    if (meta.status === 404 || meta.status === 400) throw gone();
    if (!meta.ok || typeof info.url !== 'string') throw unreachable(`media lookup answered ${meta.status}`);
    if (Number(info.file_size) > max) throw tooLarge(max);
    const bytes = await this.downloadHandedOver(info.url, auth, max, deadlineAt);
    return { bytes, providerMime: info.mime_type ?? (typeof media.mime_type === 'string' ? media.mime_type : null), fileName: typeof media.filename === 'string' ? media.filename : null };
  }

  private async telegram(media: Json, botToken: string | undefined, max: number, signal: AbortSignal): Promise<InboundMedia> {
    const file = telegramFile(media);
    if (!file) throw AppError.notFound('inbound media');
    if (!botToken) throw unreachable('no bot token for this stream');
    const v = this.routing.vendorList().find((x) => x.adapter === 'telegram_bot' && x.active);
    const base = ((v?.config as { baseUrl?: string } | undefined)?.baseUrl ?? this.options.telegram?.baseUrl ?? 'https://api.telegram.org').replace(/\/$/, '');
    if (file.size !== null && file.size > max) throw tooLarge(max);
    const res = await fetch(`${base}/bot${botToken}/getFile`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ file_id: file.id }), signal });
    const b = (await res.json().catch(() => ({}))) as { ok?: boolean; result?: { file_path?: string; file_size?: number }; error_code?: number };
    // "Bad Request: file is too big" (over the Bot API's 20 MB) or an unknown file id
    if (!b.ok || !b.result?.file_path) {
      if (res.status === 400 || res.status === 404) throw gone();
      throw unreachable(`getFile answered ${res.status}`);
    }
    if ((b.result.file_size ?? 0) > max) throw tooLarge(max);
    const bytes = await this.download(`${base}/file/bot${botToken}/${b.result.file_path.split('/').map(encodeURIComponent).join('/')}`, {}, max, signal);
    return { bytes, providerMime: file.mime, fileName: file.name };
  }

  /**
   * A download from a URL the provider's answer handed over (WhatsApp's media URL, on Meta's CDN): its host is checked
   * to be a public address (libs/platform net: no loopback unless `allowLoopback`, no private, link-local, metadata
   * address) and the request connects to the checked address (no second lookup), with the bearer token. Redirects
   * are not followed; the body is refused once it passes `max` bytes (declared or counted).
   */
  private async downloadHandedOver(url: string, headers: Record<string, string>, max: number, deadlineAt: number): Promise<Buffer> {
    const dest = await this.guard.check(url);
    let res;
    try {
      res = await requestPinned(dest, { method: 'GET', headers, timeoutMs: Math.max(1, deadlineAt - Date.now()), maxBytes: max });
    } catch (e) {
      if (e instanceof PinnedResponseTooLarge) throw tooLarge(max);
      throw e;
    }
    if (res.status === 404 || res.status === 410) throw gone();
    if (res.status !== 200) throw unreachable(`download answered ${res.status}`);
    return res.bytes;
  }

  /** The body, refused as soon as it passes `max` bytes (declared or counted). */
  private async download(url: string, headers: Record<string, string>, max: number, signal: AbortSignal): Promise<Buffer> {
    const res = await fetch(url, { headers, signal });
    if (res.status === 404 || res.status === 410) {
      await res.body?.cancel().catch(() => undefined);
      throw gone();
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => undefined);
      throw unreachable(`download answered ${res.status}`);
    }
    if (Number(res.headers.get('content-length')) > max) {
      await res.body.cancel().catch(() => undefined);
      throw tooLarge(max);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > max) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(max);
      }
      chunks.push(Buffer.from(value));
    }
    return Buffer.concat(chunks);
  }
}

/** The file of a Telegram message's media: a photo's largest size, or the document / voice / audio / video / sticker. */
export function telegramFile(media: Json): { id: string; size: number | null; mime: string | null; name: string | null } | null {
  for (const value of Object.values(media)) {
    const candidates = Array.isArray(value) ? (value as Json[]) : value && typeof value === 'object' ? [value as Json] : [];
    const best = candidates
      .filter((c) => typeof c.file_id === 'string')
      .sort((a, b) => Number(b.file_size ?? 0) - Number(a.file_size ?? 0) || Number(b.width ?? 0) - Number(a.width ?? 0))[0];
    if (best) {
      return {
        id: String(best.file_id),
        size: best.file_size === undefined ? null : Number(best.file_size),
        mime: typeof best.mime_type === 'string' ? best.mime_type : null,
        name: typeof best.file_name === 'string' ? best.file_name : null,
      };
    }
  }
  return null;
}
