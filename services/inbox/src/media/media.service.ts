import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import busboy from 'busboy';
import type { Request } from 'express';
import type { DataSource } from 'typeorm';
import { ErrorCode, MEDIA_KINDS, MEDIA_MAX_BYTES, type InboxMediaInfo, type MediaKindValue } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';
import { Clock } from '../clock';
import { refId } from '../http/input';
import { INBOX_CONNECTION } from '../inbox.options';
import { actorOf } from '../services/access';
import { KIND_TYPES, sniff } from './sniff';
import { MediaStorage } from './storage';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- SQL rows are mapped field by field

const tooLarge = (kind: string, max: number) => new AppError(413, ErrorCode.RequestValidation, `a ${kind} may be at most ${max} bytes`, [{ propertyPath: 'file', message: 'fileTooLarge', code: 'fileTooLarge' }]);
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
  constructor(
    @InjectDataSource(INBOX_CONNECTION) private readonly ds: DataSource,
    private readonly storage: MediaStorage,
    private readonly clock: Clock,
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

  private async row(id: string): Promise<Row> {
    const actor = actorOf();
    if (!/^[0-9a-f-]{36}$/i.test(id)) throw AppError.notFound('media');
    const [row] = (await this.ds.query(`SELECT id::text, kind, mime, size, file_name, storage_key FROM inbox.media WHERE id = $1 AND account_id = $2`, [id, actor.accountId])) as Row[];
    if (!row) throw AppError.notFound('media');
    return row;
  }

  async info(id: string): Promise<InboxMediaInfo> {
    return MediaService.info(await this.row(id));
  }

  async bytes(id: string): Promise<{ info: InboxMediaInfo; body: Buffer }> {
    const row = await this.row(id);
    const body = await this.storage.get(row.storage_key);
    if (!body) throw AppError.notFound('media');
    return { info: MediaService.info(row), body };
  }
}
