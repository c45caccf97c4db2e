import * as fs from 'node:fs';
import { Readable, Transform, type TransformCallback } from 'node:stream';
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

/**
 * What one archive may expand to. Sizes in the archive's headers are claims, not facts: every limit is checked on
 * the bytes actually inflated, as they come out, so a zip bomb (a few hundred KB inflating to gigabytes) is
 * stopped after a bounded amount of work and memory.
 */
export interface ZipLimits {
  /** Entries in the central directory (a workbook has a few dozen). */
  maxEntries: number;
  /** Uncompressed bytes read from all entries of the archive together. */
  maxBytes: number;
  /** Uncompressed bytes per compressed byte consumed, checked once an entry has inflated `ratioFrom` bytes. */
  maxRatio: number;
  ratioFrom: number;
}

export const ZIP_LIMITS: ZipLimits = { maxEntries: 10_000, maxBytes: 1024 * 1024 * 1024, maxRatio: 100, ratioFrom: 1024 * 1024 };

/** The uncompressed bytes read so far from one archive, against its limits. */
export class ZipBudget {
  used = 0;
  constructor(readonly limits: ZipLimits = ZIP_LIMITS) {}
}

const mib = (n: number): string => `${Math.round(n / (1024 * 1024))} MB`;

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
export async function readZipEntries(file: string, limits: ZipLimits = ZIP_LIMITS): Promise<ZipEntry[]> {
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
    if (count > limits.maxEntries) throw new ZipFormatError(`the archive has ${count} entries; a workbook has far fewer (at most ${limits.maxEntries})`);
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

/**
 * Counts what an entry inflates to and fails the stream as soon as it passes the entry's declared size, the
 * archive's budget, or the compression ratio a real file reaches.
 */
class InflateGuard extends Transform {
  private out = 0;

  constructor(
    private readonly entry: ZipEntry,
    private readonly budget: ZipBudget,
    private readonly consumed: () => number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.out += chunk.length;
    this.budget.used += chunk.length;
    const { maxBytes, maxRatio, ratioFrom } = this.budget.limits;
    const name = this.entry.name;
    if (this.out > this.entry.uncompressedSize) return done(new ZipFormatError(`${name} inflates to more than the ${this.entry.uncompressedSize} bytes its header declares`));
    if (this.budget.used > maxBytes) return done(new ZipFormatError(`the archive inflates to more than ${mib(maxBytes)}`));
    if (this.out > ratioFrom && this.out > maxRatio * Math.max(1, this.consumed())) return done(new ZipFormatError(`${name} inflates more than ${maxRatio} times its compressed size (a zip bomb)`));
    done(null, chunk);
  }
}

/**
 * The entry's uncompressed bytes as a stream, with `onCompressedBytes` told how much of the archive was read.
 * What comes out is held to `budget` (see ZipLimits); pass one budget for all entries of an archive.
 */
export async function openZipEntry(file: string, entry: ZipEntry, onCompressedBytes?: (n: number) => void, budget: ZipBudget = new ZipBudget()): Promise<Readable> {
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
  if (entry.uncompressedSize > budget.limits.maxBytes - budget.used) throw new ZipFormatError(`${entry.name} declares ${mib(entry.uncompressedSize)}, more than the archive may inflate to (${mib(budget.limits.maxBytes)})`);
  const raw = fs.createReadStream(file, { start, end: start + entry.compressedSize - 1, highWaterMark: 64 * 1024 });
  let read = 0;
  raw.on('data', (b: Buffer | string) => {
    read += b.length;
    onCompressedBytes?.(b.length);
  });
  const guard = new InflateGuard(entry, budget, () => read);
  const cleanup = () => {
    raw.destroy();
    guard.destroy();
  };
  guard.on('close', cleanup);
  if (entry.method === 0) {
    raw.on('error', (e) => guard.destroy(e));
    return raw.pipe(guard);
  }
  const inflate = zlib.createInflateRaw({ chunkSize: 64 * 1024 });
  raw.on('error', (e) => guard.destroy(e));
  inflate.on('error', (e) => guard.destroy(e));
  guard.on('close', () => inflate.destroy());
  return raw.pipe(inflate).pipe(guard);
}

/** A small entry read whole (workbook.xml, its relationships). */
export async function readZipEntryText(file: string, entry: ZipEntry, budget: ZipBudget = new ZipBudget(), maxBytes = 16 * 1024 * 1024): Promise<string> {
  if (entry.uncompressedSize > maxBytes) throw new ZipFormatError(`${entry.name} is too large`);
  const stream = await openZipEntry(file, entry, undefined, budget);
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
