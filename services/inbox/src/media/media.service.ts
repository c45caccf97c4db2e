import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import busboy from 'busboy';
import type { Request } from 'express';
import type { DataSource } from 'typeorm';
import { ErrorCode, MEDIA_KINDS, MEDIA_MAX_BYTES, type InboxMediaInfo, type MediaKindValue } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';
import { Clock } from '../clock';
import { refId } from '../http/input';
import { INBOX_CONNECTION, INBOX_OPTIONS, type ResolvedInboxOptions } from '../inbox.options';
import { actorOf } from '../services/access';
import { ConversationsService } from '../services/conversations.service';
import { KIND_TYPES, sniff } from './sniff';
import { MediaStorage } from './storage';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- SQL rows are mapped field by field

const tooLarge = (kind: string, max: number) => new AppError(413, ErrorCode.RequestValidation, `a ${kind} may be at most ${max} bytes`, [{ propertyPath: 'file', message: 'fileTooLarge', code: 'fileTooLarge' }]);
const gone = () => new AppError(404, ErrorCode.NotFound, 'the provider no longer has this media', [{ propertyPath: 'media', message: 'mediaGone', code: 'mediaGone' }]);
const decodeHeader = (v: string | null) => {
  if (!v) return null;
  try {
    return decodeURIComponent(v).replace(/[\\/]/g, '_').slice(0, 200);
  } catch {
    return null;
  }
};
const invalidMedia = (message: string) => new AppError(400, ErrorCode.InvalidArgument, `invalid media: ${message}`, [{ propertyPath: 'file', message: 'invalid media', code: 'invalidMedia' }]);

/** Reads the one `file` part of a multipart body into memory, refusing more than `max` bytes (413) before or while reading. */
function readFile(req: Request, max: number, kind: string): Promise<{ name: string; bytes: Buffer } | null> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) throw AppError.validation([{ propertyPath: 'file', message: 'send the file as multipart/form-data' }]);
  const length = Number(req.headers['content-length']);
  if (Number.isFinite(length) && length > max + 64 * 1024) {
    req.resume();
    throw tooLarge(kind, max);
  }
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { files: 1, fileSize: max, fields: 10, parts: 20 } });
    } catch {
      reject(AppError.validation([{ propertyPath: 'file', message: 'malformed multipart body' }]));
      return;
    }
    let file: { name: string; bytes: Buffer } | null = null;
    let over = false;
    bb.on('file', (field, stream, info) => {
      if (field !== 'file' || file) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => (over = true));
      stream.on('end', () => (file = { name: (info.filename || 'upload').replace(/[\\/]/g, '_').slice(0, 200), bytes: Buffer.concat(chunks) }));
    });
    bb.on('error', () => reject(AppError.validation([{ propertyPath: 'file', message: 'malformed multipart body' }])));
    bb.on('close', () => (over ? reject(tooLarge(kind, max)) : resolve(file)));
    req.pipe(bb);
  });
}

/**
 * Media of conversations (spec 7: upload, stream_media, media_info): per kind a size limit and the types it takes,
 * checked from the bytes; stored behind MediaStorage under the account's prefix; every read checks the account.
 */
@Injectable()
export class MediaService {
  private readonly log = new Logger(MediaService.name);
  /** First reads of one inbound media in flight in this process: one provider fetch for all of them. */
  private readonly fetching = new Map<string, Promise<Row>>();

  constructor(
    @InjectDataSource(INBOX_CONNECTION) private readonly ds: DataSource,
    private readonly storage: MediaStorage,
    private readonly clock: Clock,
    @Inject(INBOX_OPTIONS) private readonly options: ResolvedInboxOptions,
    private readonly conversations: ConversationsService,
    private readonly http: HttpAdapterHost,
  ) {}

  static info(r: Row): InboxMediaInfo {
    return { id: r.id, kind: r.kind, mime: r.mime, size: Number(r.size), file_name: r.file_name, url: `/api/stream_media/${r.id as string}` };
  }

  async upload(req: Request, type: string, streamRef: string): Promise<InboxMediaInfo> {
    const actor = actorOf();
    if (!MEDIA_KINDS.includes(type as MediaKindValue)) throw AppError.validation([{ propertyPath: 'type', message: `one of ${MEDIA_KINDS.join(', ')}` }]);
    const kind = type as MediaKindValue;
    const byUid = /^[0-9a-f-]{36}$/i.test(streamRef);
    const [stream] = (await this.ds.query(
      `SELECT stream_id::text FROM inbox.stream WHERE account_id = $1 AND NOT deleted AND ${byUid ? 'stream_uid = $2::uuid' : 'stream_id = $2::bigint'}`,
      [actor.accountId, byUid ? streamRef : (refId(streamRef) ?? '0')],
    )) as Row[];
    if (!stream) throw AppError.notFound('stream');
    const max = MEDIA_MAX_BYTES[kind];
    const file = await readFile(req, max, kind);
    if (!file || !file.bytes.length) throw AppError.validation([{ propertyPath: 'file', message: 'required' }]);
    const mime = sniff(file.bytes);
    if (!mime) throw invalidMedia('the bytes are no known format');
    if (!KIND_TYPES[kind].includes(mime)) throw invalidMedia(`${mime} is not a ${kind} (${KIND_TYPES[kind].join(', ')})`);
    const id = randomUUID();
    const key = `${actor.accountId}/${id}`;
    await this.storage.put(key, file.bytes, mime);
    const [row] = (await this.ds.query(
      `INSERT INTO inbox.media (id, account_id, stream_id, kind, mime, size, file_name, storage_key, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       RETURNING id::text, kind, mime, size, file_name`,
      [id, actor.accountId, stream.stream_id, kind, mime, file.bytes.length, file.name, key, this.clock.now()],
    )) as Row[];
    return MediaService.info(row);
  }

  /** The media row; inbound media not kept yet is fetched now (with the caller's token, for dispatch to check). */
  private async row(id: string, authorization?: string): Promise<Row> {
    const actor = actorOf();
    if (!/^[0-9a-f-]{36}$/i.test(id)) throw AppError.notFound('media');
    const [row] = (await this.ds.query(`SELECT id::text, kind, mime, size, file_name, storage_key FROM inbox.media WHERE id = $1 AND account_id = $2`, [id, actor.accountId])) as Row[];
    if (row) return row;
    // every caller's own check first; then one fetch for all callers of the moment
    const ev = await this.inboundEvent(id);
    const key = `${actor.accountId}/${id}`;
    let run = this.fetching.get(key);
    if (!run) {
      run = this.fetchInbound(id, ev, authorization).finally(() => this.fetching.delete(key));
      this.fetching.set(key, run);
    }
    return run;
  }

  /**
   * Inbound media's first read (docs/decisions/0045): the message must be in a conversation the caller sees; dispatch
   * fetches the bytes from the provider (it holds the token), bounded by the kind's limit; the type is read from the
   * bytes here, as for uploads; kept like an upload under the message's uuid. A refusal that will not change
   * (gone, too large, not the kind's type) is written on the message so it is not fetched again.
   */
  private async inboundEvent(id: string): Promise<Row> {
    const actor = actorOf();
    const [ev] = (await this.ds.query(
      `SELECT e.id::text AS event_id, c.uuid::text AS conversation_uuid, c.stream_id::text, e.content->'media' AS media FROM inbox.event e JOIN inbox.conversation c ON c.id = e.conversation_id
       WHERE e.message_uuid = $1 AND e.account_id = $2 AND e.event_type = 'incoming_message' AND e.content->'media'->>'pending' = 'true'`,
      [id, actor.accountId],
    )) as Row[];
    if (!ev) throw AppError.notFound('media');
    await this.conversations.visibleConversation(ev.conversation_uuid, actor).catch(() => {
      throw AppError.notFound('media');
    });
    return ev;
  }

  private async fetchInbound(id: string, ev: Row, authorization?: string): Promise<Row> {
    const actor = actorOf();
    const media = ev.media as InboxMediaInfo;
    const kind = media.kind;
    if (!MEDIA_KINDS.includes(kind)) throw AppError.notFound('media');
    if (media.unavailable === 'fileTooLarge') throw tooLarge(kind, MEDIA_MAX_BYTES[kind]);
    if (media.unavailable === 'invalidMedia') throw invalidMedia(`the ${kind} received is not a ${kind} (${KIND_TYPES[kind].join(', ')})`);
    if (media.unavailable === 'mediaGone') throw gone();
    const max = MEDIA_MAX_BYTES[kind];
    const res = await this.askDispatch(id, max, authorization);
    if (res.status === 404 || res.status === 413) {
      const answer = (await res.json().catch(() => ({}))) as { violations?: Array<{ code?: string }> };
      // dispatch's 404 without a code: the message is not its (another account): nothing is written
      const reason = res.status === 413 ? 'fileTooLarge' : answer.violations?.[0]?.code === 'mediaGone' ? 'mediaGone' : null;
      if (!reason) throw AppError.notFound('media');
      await this.markUnavailable(ev.event_id, reason);
      throw reason === 'fileTooLarge' ? tooLarge(kind, max) : gone();
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      if (res.status === 401 || res.status === 403) throw new AppError(res.status, res.status === 401 ? ErrorCode.InvalidToken : ErrorCode.NoPermissions, 'dispatch refused the media for this token');
      throw new AppError(502, ErrorCode.General, 'the provider did not hand over the media; try again later', [{ propertyPath: 'media', message: 'providerUnavailable', code: 'providerUnavailable' }]);
    }
    const bytes = Buffer.from(await res.arrayBuffer());
    if (bytes.length > max) {
      await this.markUnavailable(ev.event_id, 'fileTooLarge');
      throw tooLarge(kind, max);
    }
    const mime = sniff(bytes);
    if (!mime || !KIND_TYPES[kind].includes(mime)) {
      await this.markUnavailable(ev.event_id, 'invalidMedia');
      throw invalidMedia(`the ${kind} received is ${mime ?? 'no known format'}, not ${KIND_TYPES[kind].join(', ')}`);
    }
    const fileName = decodeHeader(res.headers.get('x-media-file-name')) ?? media.file_name ?? null;
    const storageKey = `${actor.accountId}/${id}`;
    await this.storage.put(storageKey, bytes, mime);
    const info: InboxMediaInfo = { id, kind, mime, size: bytes.length, file_name: fileName, url: `/api/stream_media/${id}` };
    await this.ds.transaction(async (m) => {
      await m.query(
        `INSERT INTO inbox.media (id, account_id, stream_id, kind, mime, size, file_name, storage_key, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
        [id, actor.accountId, ev.stream_id, kind, mime, bytes.length, fileName, storageKey, this.clock.now()],
      );
      await m.query(`UPDATE inbox.event SET content = jsonb_set(content, '{media}', $2::jsonb) WHERE id = $1`, [ev.event_id, JSON.stringify(info)]);
    });
    return { id, kind, mime, size: bytes.length, file_name: fileName, storage_key: storageKey };
  }

  private async markUnavailable(eventId: string, reason: NonNullable<InboxMediaInfo['unavailable']>): Promise<void> {
    await this.ds.query(`UPDATE inbox.event SET content = jsonb_set(content, '{media,unavailable}', to_jsonb($2::text)) WHERE id = $1`, [eventId, reason]);
  }

  private dispatchBase(): string {
    if (this.options.dispatchUrl) return this.options.dispatchUrl;
    const addr = this.http.httpAdapter?.getHttpServer()?.address() as { port: number } | string | null;
    if (!addr || typeof addr === 'string') throw new AppError(502, ErrorCode.General, 'dispatch is not reachable from the inbox');
    return `http://127.0.0.1:${addr.port}`;
  }

  private async askDispatch(id: string, max: number, authorization?: string): Promise<globalThis.Response> {
    if (!authorization) throw AppError.unauthorized();
    try {
      return await fetch(`${this.dispatchBase()}/api/dispatch/inbound_media/${id}?max=${max}`, { headers: { authorization }, signal: AbortSignal.timeout(this.options.inboundMediaTimeoutMs) });
    } catch (e) {
      this.log.warn(`inbound media ${id}: dispatch did not answer (${e instanceof Error ? e.name : 'error'})`);
      throw new AppError(502, ErrorCode.General, 'the provider did not hand over the media; try again later', [{ propertyPath: 'media', message: 'providerUnavailable', code: 'providerUnavailable' }]);
    }
  }

  async info(id: string, authorization?: string): Promise<InboxMediaInfo> {
    return MediaService.info(await this.row(id, authorization));
  }

  async bytes(id: string, authorization?: string): Promise<{ info: InboxMediaInfo; body: Buffer }> {
    const row = await this.row(id, authorization);
    const body = await this.storage.get(row.storage_key);
    if (!body) throw AppError.notFound('media');
    return { info: MediaService.info(row), body };
  }
}
