/**
 * A one-dimensional PostgreSQL array in the binary wire format (`array_recv`), written element by element into one
 * growing buffer (docs/decisions/0141). node-postgres sends a `Buffer` parameter in the binary format, so a statement
 * reading `$n::uuid[]` receives the array with no literal to scan: a uuid is its 16 bytes (not 36 hex characters), a
 * bigint its 8 bytes, a text its UTF-8 bytes as they are (no quoting, no escaping on either side). For Node, no string a
 * field and batch is built and flattened; for PostgreSQL, no `array_in` parse and no per-element text input function.
 *
 * The layout: ndim (1), a has-nulls flag, the element type's OID, the length and the lower bound (1), then each element
 * as its byte length (-1: NULL) and its bytes. The element type must be the one the statement casts the parameter to
 * (PostgreSQL refuses another). Values are checked as PostgreSQL's text input would check them (a malformed uuid or an
 * integer out of range is an error, never a wrong value).
 */
export const PgType = { int8: 20, text: 25, uuid: 2950 } as const;
export type PgElementType = (typeof PgType)[keyof typeof PgType];

const HEADER = 20;
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[65 + i] = HEX[97 + i] = 10 + i;
const TWO_32 = 4_294_967_296;
const INT8_TEXT = /^\s*[+-]?\d+\s*$/;
const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;

export class PgBinaryArray {
  private buf: Buffer;
  private at = HEADER;
  private n = 0;
  private nulls = false;
  /** Where the element `open` began (its length is written by `close`). */
  private opened = -1;

  constructor(
    private readonly type: PgElementType,
    capacity = 4096,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(capacity, 64));
  }

  /** Elements written so far. */
  get length(): number {
    return this.n;
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  null(): void {
    this.room(4);
    this.buf.writeInt32BE(-1, this.at);
    this.at += 4;
    this.n++;
    this.nulls = true;
  }

  /** A bigint element from its decimal text (as `int8in` reads it); null is NULL. */
  int8(text: string | null): void {
    if (text === null) return this.null();
    this.room(12);
    const b = this.buf;
    let at = this.at;
    b.writeInt32BE(8, at);
    at += 4;
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
      b.writeUInt32BE(hi, at);
      b.writeUInt32BE(v - hi * TWO_32, at + 4);
    } else {
      if (!INT8_TEXT.test(text)) throw new RangeError(`pg binary array: invalid input syntax for type bigint: "${text}"`);
      const big = BigInt(text.trim());
      if (big < INT8_MIN || big > INT8_MAX) throw new RangeError(`pg binary array: value "${text}" is out of range for type bigint`);
      b.writeBigInt64BE(big, at);
    }
    this.at = at + 8;
    this.n++;
  }

  /** A uuid element from its text, in any form `uuid_in` takes (canonical, upper case, braces, hyphens by fours). */
  uuid(text: string): void {
    this.room(20);
    const b = this.buf;
    let at = this.at;
    b.writeInt32BE(16, at);
    at += 4;
    if (text.length === 36 && text.charCodeAt(8) === 45 && text.charCodeAt(13) === 45 && text.charCodeAt(18) === 45 && text.charCodeAt(23) === 45) {
      for (let i = 0; i < 36; ) {
        if (i === 8 || i === 13 || i === 18 || i === 23) i++;
        const hi = hexAt(text, i);
        const lo = hexAt(text, i + 1);
        if ((hi | lo) < 0) throw new RangeError(`pg binary array: invalid input syntax for type uuid: "${text}"`);
        b[at++] = (hi << 4) | lo;
        i += 2;
      }
    } else {
      uuidOtherForm(text, b, at);
      at += 16;
    }
    this.at = at;
    this.n++;
  }

  /** A text element (its UTF-8 bytes). */
  text(s: string): void {
    this.open();
    this.append(s);
    this.close();
  }

  /** Begins a text element written by `append`s and ended by `close` (no string of the whole element built). */
  open(): void {
    this.room(4);
    this.opened = this.at;
    this.at += 4;
  }

  /** Appends text (its UTF-8 bytes) to the element `open` began. */
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

  close(): void {
    this.buf.writeInt32BE(this.at - this.opened - 4, this.opened);
    this.opened = -1;
    this.n++;
  }

  /** The array's bytes (a view of the buffer: write no more elements after taking it). */
  get value(): Buffer {
    const b = this.buf;
    b.writeInt32BE(1, 0);
    b.writeInt32BE(this.nulls ? 1 : 0, 4);
    b.writeInt32BE(this.type, 8);
    b.writeInt32BE(this.n, 12);
    b.writeInt32BE(1, 16);
    return b.subarray(0, this.at);
  }
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
    if (text.charCodeAt(end - 1) !== 125) throw new RangeError(`pg binary array: invalid input syntax for type uuid: "${text}"`);
    i = 1;
    end--;
  }
  for (let k = 0; k < 16; k++) {
    const hi = i < end ? hexAt(text, i) : -1;
    const lo = i + 1 < end ? hexAt(text, i + 1) : -1;
    if ((hi | lo) < 0) throw new RangeError(`pg binary array: invalid input syntax for type uuid: "${text}"`);
    b[at + k] = (hi << 4) | lo;
    i += 2;
    if (k % 2 === 1 && k < 15 && text.charCodeAt(i) === 45) i++;
  }
  if (i !== end) throw new RangeError(`pg binary array: invalid input syntax for type uuid: "${text}"`);
}
