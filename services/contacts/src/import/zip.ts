import * as fs from 'node:fs';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';

/** One file inside a zip archive (an XLSX is one), from the central directory. */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

export class ZipFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipFormatError';
  }
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;

async function readAt(fd: fs.promises.FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fd.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

/**
 * Lists a zip archive's entries from its central directory (the archive is on disk, so it is read from the end
 * rather than streamed). ZIP64 archives (over 4 GB or 65535 entries) are refused: uploads are far smaller.
 */
export async function readZipEntries(file: string): Promise<ZipEntry[]> {
  const fd = await fs.promises.open(file, 'r');
  try {
    const size = (await fd.stat()).size;
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = await readAt(fd, size - tailLength, tailLength);
    let eocd = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD_SIGNATURE) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new ZipFormatError('not a zip archive (no end of central directory)');
    const count = tail.readUInt16LE(eocd + 10);
    const dirSize = tail.readUInt32LE(eocd + 12);
    const dirOffset = tail.readUInt32LE(eocd + 16);
    if (count === 0xffff || dirOffset === 0xffffffff) throw new ZipFormatError('ZIP64 archives are not supported');
    if (dirOffset + dirSize > size) throw new ZipFormatError('the central directory lies outside the file');
    const dir = await readAt(fd, dirOffset, dirSize);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let k = 0; k < count; k++) {
      if (p + 46 > dir.length || dir.readUInt32LE(p) !== CENTRAL_SIGNATURE) throw new ZipFormatError('a central directory entry is damaged');
      const method = dir.readUInt16LE(p + 10);
      const compressedSize = dir.readUInt32LE(p + 20);
      const uncompressedSize = dir.readUInt32LE(p + 24);
      const nameLength = dir.readUInt16LE(p + 28);
      const extraLength = dir.readUInt16LE(p + 30);
      const commentLength = dir.readUInt16LE(p + 32);
      const localHeaderOffset = dir.readUInt32LE(p + 42);
      const name = dir.toString('utf8', p + 46, p + 46 + nameLength);
      entries.push({ name, method, compressedSize, uncompressedSize, localHeaderOffset });
      p += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
  } finally {
    await fd.close();
  }
}

/** The entry's uncompressed bytes as a stream, with `onCompressedBytes` told how much of the archive was read. */
export async function openZipEntry(file: string, entry: ZipEntry, onCompressedBytes?: (n: number) => void): Promise<Readable> {
  if (entry.method !== 0 && entry.method !== 8) throw new ZipFormatError(`${entry.name}: compression method ${entry.method} is not supported`);
  const fd = await fs.promises.open(file, 'r');
  let header: Buffer;
  try {
    header = await readAt(fd, entry.localHeaderOffset, 30);
  } finally {
    await fd.close();
  }
  if (header.length < 30 || header.readUInt32LE(0) !== LOCAL_SIGNATURE) throw new ZipFormatError(`${entry.name}: local header is damaged`);
  const start = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (entry.compressedSize === 0) return Readable.from([]);
  const raw = fs.createReadStream(file, { start, end: start + entry.compressedSize - 1, highWaterMark: 256 * 1024 });
  if (onCompressedBytes) raw.on('data', (b: Buffer | string) => onCompressedBytes(b.length));
  if (entry.method === 0) return raw;
  const inflate = zlib.createInflateRaw();
  raw.on('error', (e) => inflate.destroy(e));
  return raw.pipe(inflate);
}

/** A small entry read whole (workbook.xml, its relationships). */
export async function readZipEntryText(file: string, entry: ZipEntry, maxBytes = 16 * 1024 * 1024): Promise<string> {
  if (entry.uncompressedSize > maxBytes) throw new ZipFormatError(`${entry.name} is too large`);
  const stream = await openZipEntry(file, entry);
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) {
      stream.destroy();
      throw new ZipFormatError(`${entry.name} is too large`);
    }
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}
