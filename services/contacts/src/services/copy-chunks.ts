/** A chunk of whole COPY text lines: `rows` lines, the first the stream's line number `firstOrdinal` (0-based). */
export interface CopyChunk {
  firstOrdinal: number;
  rows: number;
  data: Buffer;
}

const LF = 10;

function countLines(b: Buffer, from: number, to: number): number {
  let n = 0;
  for (let at = b.indexOf(LF, from); at >= 0 && at < to; at = b.indexOf(LF, at + 1)) n++;
  return n;
}

/**
 * Cuts a COPY TO stream (bytes in reads of any size, lines ending with a line feed, none raw inside a line) into
 * chunks of whole lines of at most `maxBytes` each, in order, without decoding the bytes. A single line longer than
 * `maxBytes` makes a chunk of its own (over the limit: its reader refuses it, as it would any event too large).
 */
export class ChunkCutter {
  private parts: Buffer[] = [];
  private size = 0;
  private lines = 0;
  private first = 0;
  /** The start of a line whose end has not come yet. */
  private carry: Buffer | null = null;

  constructor(private readonly maxBytes: number) {
    if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new Error(`ChunkCutter: maxBytes must be a positive integer, got ${maxBytes}`);
  }

  /** Takes the next read; answers the chunks it completed (full ones; the last one comes from end()). */
  add(read: Buffer): CopyChunk[] {
    const done: CopyChunk[] = [];
    const b = this.carry ? Buffer.concat([this.carry, read]) : read;
    this.carry = null;
    const lastLf = b.lastIndexOf(LF);
    if (lastLf < b.length - 1) this.carry = Buffer.from(b.subarray(lastLf + 1)); // a copy: the read may be reused
    const end = lastLf + 1;
    let at = 0;
    while (at < end) {
      const room = this.maxBytes - this.size;
      let cut = end - at <= room ? end - 1 : room > 0 ? b.lastIndexOf(LF, at + room - 1) : -1;
      if (cut < at) {
        if (this.lines > 0) {
          done.push(this.take());
          continue;
        }
        cut = b.indexOf(LF, at); // one line longer than a chunk: alone
      }
      this.parts.push(Buffer.from(b.subarray(at, cut + 1)));
      this.size += cut + 1 - at;
      this.lines += countLines(b, at, cut + 1);
      at = cut + 1;
      if (at < end) done.push(this.take());
    }
    return done;
  }

  /** The last chunk (possibly empty); throws if the stream ended in the middle of a line. */
  end(): CopyChunk {
    if (this.carry) throw new Error(`COPY stream ended in the middle of a line (${this.carry.length} bytes without a line feed)`);
    return this.take();
  }

  private take(): CopyChunk {
    const chunk = { firstOrdinal: this.first, rows: this.lines, data: Buffer.concat(this.parts, this.size) };
    this.first += this.lines;
    this.parts = [];
    this.size = 0;
    this.lines = 0;
    return chunk;
  }
}

/** A chunk of two lines or more cut in two at the line end nearest its middle (for a chunk whose event is too large). */
export function halve(c: CopyChunk): [CopyChunk, CopyChunk] {
  if (c.rows < 2) throw new Error('halve: a chunk of one line cannot be cut');
  const mid = c.data.length >> 1;
  let cut = c.data.indexOf(LF, mid);
  if (cut < 0 || cut === c.data.length - 1) cut = c.data.lastIndexOf(LF, mid - 1);
  const rows = countLines(c.data, 0, cut + 1);
  return [
    { firstOrdinal: c.firstOrdinal, rows, data: c.data.subarray(0, cut + 1) },
    { firstOrdinal: c.firstOrdinal + rows, rows: c.rows - rows, data: c.data.subarray(cut + 1) },
  ];
}

/** What a byte of UTF-8 text becomes in a JSON string, in bytes: `"` and backslash 2, control characters 2 or 6, others 1. */
const JSON_BYTE = new Uint8Array(256).map((_v, b) => (b === 0x22 || b === 0x5c || b === 0x08 || b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d ? 2 : b < 0x20 ? 6 : 1));

/**
 * The bytes of valid UTF-8 text as the inside of a JSON string (JSON.stringify's escaping, without the quotes): bytes of
 * multi-byte characters are written as they are. One pass over the bytes, no string made.
 */
export function jsonTextBytes(text: Buffer): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) n += JSON_BYTE[text[i]];
  return n;
}
