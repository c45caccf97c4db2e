import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request } from 'express';
import { ErrorCode } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';

export interface ReceivedFile {
  path: string;
  /** The client's file name, base name only. */
  name: string;
  size: number;
}

export interface Upload {
  file: ReceivedFile | null;
  fields: Record<string, string>;
}

const tooLarge = (max: number) => new AppError(413, ErrorCode.RequestValidation, `the file is larger than ${Math.round(max / (1024 * 1024))} MB`, [{ propertyPath: 'file', message: 'fileTooLarge' }]);

/**
 * Streams a multipart upload (one field `file`, a few text fields) to `dir` without holding it in memory. A file
 * over `maxBytes` is cut off, removed and answered with 413; a body announcing more than that is refused before
 * it is read.
 */
export async function receiveUpload(req: Request, dir: string, maxBytes: number): Promise<Upload> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) throw AppError.validation([{ propertyPath: 'file', message: 'send the file as multipart/form-data' }]);
  const length = Number(req.headers['content-length']);
  if (Number.isFinite(length) && length > maxBytes + 64 * 1024) {
    req.socket.on('error', () => undefined);
    req.resume();
    throw tooLarge(maxBytes);
  }
  await fs.promises.mkdir(dir, { recursive: true });

  let bb: busboy.Busboy;
  try {
    bb = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes, fields: 20, fieldSize: 4096, parts: 30 } });
  } catch {
    throw AppError.validation([{ propertyPath: 'file', message: 'malformed multipart body' }]);
  }
  const fields: Record<string, string> = {};
  let file: ReceivedFile | null = null;
  let truncated = false;
  const writes: Array<Promise<void>> = [];
  const written: string[] = [];

  bb.on('field', (name, value) => {
    if (name !== '__proto__' && name !== 'constructor' && name !== 'prototype') fields[name] = value;
  });
  bb.on('file', (field, stream, info) => {
    if (field !== 'file' || file) {
      stream.resume();
      return;
    }
    const base = path.basename(info.filename || 'upload').slice(0, 200);
    const ext = /\.xlsx$/i.test(base) ? '.xlsx' : '.csv';
    const target = path.join(dir, `${randomUUID()}${ext}`);
    written.push(target);
    const f: ReceivedFile = { path: target, name: base, size: 0 };
    file = f;
    stream.on('data', (b: Buffer) => {
      f.size += b.length;
    });
    stream.on('limit', () => {
      truncated = true;
    });
    writes.push(pipeline(stream, fs.createWriteStream(target)));
  });

  const cleanup = async () => {
    await Promise.all(written.map((p) => fs.promises.rm(p, { force: true })));
  };
  try {
    await new Promise<void>((resolve, reject) => {
      bb.on('close', () => resolve());
      bb.on('error', (e) => reject(AppError.validation([{ propertyPath: 'file', message: `malformed multipart body: ${(e as Error).message}` }])));
      req.on('aborted', () => reject(AppError.validation([{ propertyPath: 'file', message: 'the upload was interrupted' }])));
      req.pipe(bb);
    });
    await Promise.all(writes);
  } catch (e) {
    await cleanup();
    throw e;
  }
  if (truncated) {
    await cleanup();
    throw tooLarge(maxBytes);
  }
  return { file, fields };
}
