/**
 * PostgreSQL's binary wire format for the values minting sends (docs/decisions/0141): one-dimensional arrays
 * (`array_recv`) and rows of a table's composite type (`record_recv`), written element by element into one growing
 * buffer. node-postgres sends a `Buffer` parameter in the binary format, so a statement reading `$n::uuid[]` or
 * `$n::links.link_range[]` receives the value with no literal to scan: a uuid is its 16 bytes (not 36 hex characters),
 * a bigint its 8 bytes, a text its UTF-8 bytes as they are (no quoting, no escaping on either side). For Node, no string
 * a field and batch is built and flattened; for PostgreSQL, no `array_in` parse and no per-element text input function.
 *
 * An array: ndim (1), a has-nulls flag, the element type's OID, the length and the lower bound (1), then each element
 * as its byte length (-1: NULL) and its bytes. A row: its number of columns, then each column as its type's OID, its
 * byte length (-1: NULL) and its bytes. The types must be the ones the statement casts to (PostgreSQL refuses others).
 * Values are checked as PostgreSQL's text input would check them: a malformed uuid or an integer out of range is an
 * error, never a wrong value. A bigint is decimal text (the contracts' ids); PostgreSQL 16's hexadecimal, octal, binary
 * and underscored integer forms are refused rather than read.
 */
export const PgType = { int8: 20, text: 25, timestamptz: 1184, int8Array: 1016, textArray: 1009, uuidArray: 2951, uuid: 2950 } as const;

const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[65 + i] = HEX[97 + i] = 10 + i;
const TWO_32 = 4_294_967_296;
const INT8_TEXT = /^\s*[+-]?\d+\s*$/;
const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;
/** PostgreSQL's epoch (2000-01-01) in Unix milliseconds: a timestamptz is microseconds from it. */
const PG_EPOCH_MS = 946_684_800_000;

/** A growing buffer of binary values; `open`/`close` frame a value whose byte length precedes it. */
export class PgBinaryWriter {
  private buf: Buffer;
  at = 0;
  private readonly frames: number[] = [];

  constructor(capacity = 4096) {
    this.buf = Buffer.allocUnsafe(Math.max(capacity, 64));
  }

  room(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  int32(v: number): void {
    this.room(4);
    put32(this.buf, this.at, v);
    this.at += 4;
  }

  /** Overwrites the int32 at `at` (a header field known only later). */
  patch32(at: number, v: number): void {
    this.buf.writeInt32BE(v, at);
  }

  /** A length-prefixed value begins: its bytes follow, `close` writes their length before them. */
  open(): void {
    this.room(4);
    this.frames.push(this.at);
    this.at += 4;
  }

  close(): void {
    const start = this.frames.pop()!;
    put32(this.buf, start, this.at - start - 4);
  }

  /** A length-prefixed bigint from its decimal text (as `int8in` reads it). */
  int8(text: string): void {
    this.room(12);
    const b = this.buf;
    const at = this.at;
    put32(b, at, 8);
    let v = 0;
    let plain = text.length > 0 && text.length <= 15;
    for (let i = 0; plain && i < text.length; i++) {
      const d = text.charCodeAt(i) - 48;
      if (d < 0 || d > 9) plain = false;
      else v = v * 10 + d;
    }
    if (plain) {
      // 0 <= v < 10^15 < 2^53: exact as a double
      const hi = Math.floor(v / TWO_32);
      put32(b, at + 4, hi);
      put32(b, at + 8, v - hi * TWO_32);
    } else {
      if (!INT8_TEXT.test(text)) throw new RangeError(`pg binary: invalid input syntax for type bigint: "${text}"`);
      const big = BigInt(text.trim());
      if (big < INT8_MIN || big > INT8_MAX) throw new RangeError(`pg binary: value "${text}" is out of range for type bigint`);
      b.writeBigInt64BE(big, at + 4);
    }
    this.at = at + 12;
  }

  /**
   * A length-prefixed bigint from its decimal text, as `int8`, where the same text often comes again in a row (a batch's
   * variant, a recipient's domain): the text equal to the last one `memo` saw copies that value's 12 bytes.
   */
  int8Memo(text: string, memo: Int8Memo): void {
    if (text === memo.text && memo.text !== undefined) {
      this.room(12);
      // twelve bytes by hand: Buffer#copy's call costs more than the copy
      const b = this.buf;
      const to = this.at;
      const from = memo.at;
      for (let i = 0; i < 12; i++) b[to + i] = b[from + i];
      this.at = to + 12;
      return;
    }
    memo.at = this.at;
    this.int8(text);
    memo.text = text;
  }

  /** A length-prefixed bigint from a safe integer. */
  int8Number(v: number): void {
    if (!Number.isSafeInteger(v)) throw new RangeError(`pg binary: not an integer: ${v}`);
    this.room(12);
    this.buf.writeInt32BE(8, this.at);
    this.buf.writeBigInt64BE(BigInt(v), this.at + 4);
    this.at += 12;
  }

  /** A length-prefixed timestamptz of a `Date` (microseconds from 2000-01-01; a Date is whole milliseconds). */
  timestamptz(d: Date): void {
    const ms = d.getTime();
    if (!Number.isFinite(ms)) throw new RangeError('pg binary: an invalid date');
    this.int8Number((ms - PG_EPOCH_MS) * 1000);
  }

  /** A length-prefixed uuid from its text, in any form `uuid_in` takes (canonical, upper case, braces, hyphens by fours). */
  uuid(text: string): void {
    this.room(20);
    const b = this.buf;
    let at = this.at;
    put32(b, at, 16);
    at += 4;
    if (text.length === 36 && text.charCodeAt(8) === 45 && text.charCodeAt(13) === 45 && text.charCodeAt(18) === 45 && text.charCodeAt(23) === 45) {
      for (let i = 0; i < 36; ) {
        if (i === 8 || i === 13 || i === 18 || i === 23) i++;
        const hi = hexAt(text, i);
        const lo = hexAt(text, i + 1);
        if ((hi | lo) < 0) throw new RangeError(`pg binary: invalid input syntax for type uuid: "${text}"`);
        b[at++] = (hi << 4) | lo;
        i += 2;
      }
    } else {
      uuidOtherForm(text, b, at);
      at += 16;
    }
    this.at = at;
  }

  /** A length-prefixed text (its UTF-8 bytes). */
  text(s: string): void {
    this.open();
    this.append(s);
    this.close();
  }

  /** Text's UTF-8 bytes appended to the value `open` began. */
  append(s: string): void {
    const len = s.length;
    this.room(len * 3);
    const b = this.buf;
    const start = this.at;
    for (let i = 0; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        // not ASCII: the whole piece through the UTF-8 encoder (as node-postgres writes a text parameter)
        this.at = start + b.write(s, start, 'utf8');
        return;
      }
      b[start + i] = c;
    }
    this.at = start + len;
  }

  /** One ASCII character (its code) appended to the value `open` began. */
  byte(c: number): void {
    this.room(1);
    this.buf[this.at++] = c;
  }

  /**
   * Text appended as the inside of a JSON string when `JSON.stringify` would write it as it is (no quote, backslash,
   * control character or surrogate): true; else nothing appended and false.
   */
  appendPlainJson(s: string): boolean {
    const len = s.length;
    this.room(len * 3);
    const b = this.buf;
    const start = this.at;
    let ascii = true;
    for (let i = 0; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
      if (c >= 0x80) ascii = false;
      else b[start + i] = c;
    }
    // not ASCII: the whole piece through the UTF-8 encoder (over the ASCII bytes written meanwhile)
    this.at = ascii ? start + len : start + b.write(s, start, 'utf8');
    return true;
  }

  /** The bytes written (a view of the buffer: write no more after taking it). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.at);
  }
}

/** The last bigint an `int8Memo` call site wrote: its text and where its 12 bytes are in the writer. */
export interface Int8Memo {
  text: string | undefined;
  at: number;
}

/** An int32 (or a uint32: the same four bytes) stored big-endian at `at` (room already made). */
function put32(b: Buffer, at: number, v: number): void {
  b[at] = v >>> 24;
  b[at + 1] = v >>> 16;
  b[at + 2] = v >>> 8;
  b[at + 3] = v;
}

/**
 * A one-dimensional array's header; returns where its has-nulls flag and its length are, for `endArray`. The elements
 * follow, each length-prefixed (`null()` for NULL).
 */
export function beginArray(w: PgBinaryWriter, elementType: number): number {
  const at = w.at;
  w.int32(1);
  w.int32(0);
  w.int32(elementType);
  w.int32(0);
  w.int32(1);
  return at;
}

export function endArray(w: PgBinaryWriter, header: number, length: number, nulls: boolean): void {
  w.patch32(header + 4, nulls ? 1 : 0);
  w.patch32(header + 12, length);
}

/** A NULL element or column value. */
export function writeNull(w: PgBinaryWriter): void {
  w.int32(-1);
}

function hexAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c < 128 ? HEX[c] : -1;
}

/**
 * `uuid_in`'s other forms: optionally in braces, 32 hex digits with a hyphen allowed after any group of four (not at
 * the end); anything else is refused as PostgreSQL refuses it.
 */
function uuidOtherForm(text: string, b: Buffer, at: number): void {
  let i = 0;
  let end = text.length;
  if (text.charCodeAt(0) === 123) {
    if (text.charCodeAt(end - 1) !== 125) throw new RangeError(`pg binary: invalid input syntax for type uuid: "${text}"`);
    i = 1;
    end--;
  }
  for (let k = 0; k < 16; k++) {
    const hi = i < end ? hexAt(text, i) : -1;
    const lo = i + 1 < end ? hexAt(text, i + 1) : -1;
    if ((hi | lo) < 0) throw new RangeError(`pg binary: invalid input syntax for type uuid: "${text}"`);
    b[at + k] = (hi << 4) | lo;
    i += 2;
    if (k % 2 === 1 && k < 15 && text.charCodeAt(i) === 45) i++;
  }
  if (i !== end) throw new RangeError(`pg binary: invalid input syntax for type uuid: "${text}"`);
}

/** A text[] parameter in the binary format. */
export function textArray(values: readonly string[]): Buffer {
  const w = new PgBinaryWriter(8 * values.length + 64);
  const h = beginArray(w, PgType.text);
  for (const v of values) w.text(v);
  endArray(w, h, values.length, false);
  return w.bytes();
}
