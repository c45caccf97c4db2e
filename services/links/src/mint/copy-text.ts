/**
 * Rows of PostgreSQL's COPY text format written straight into one growing buffer (docs/decisions/0071): no string per
 * row, no array of rows to join, no conversion of the joined text to bytes when it is sent. Values that need nothing
 * escaped (ids, digits, UUIDs, plain phone numbers and variables) are copied as they are; anything else goes through
 * the same escaping as before (backslash, tab, newline, carriage return; JSON's own escapes inside a JSON value).
 */
export class CopyText {
  private buf: Buffer;
  private at = 0;

  constructor(initialBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  get length(): number {
    return this.at;
  }

  /** The rows written so far (a view of the buffer: valid until the next write). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.at);
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  /** Bytes known to need no escaping (the constant parts of a row, prepared once). */
  raw(b: Buffer): void {
    this.room(b.length);
    b.copy(this.buf, this.at);
    this.at += b.length;
  }

  /** A tab, a newline or another single ASCII byte. */
  byte(c: number): void {
    this.room(1);
    this.buf[this.at++] = c;
  }

  /** A non-negative integer below 2^53, in decimal. */
  int(v: number): void {
    let digits = 1;
    for (let x = v; x >= 10; x = Math.floor(x / 10)) digits++;
    this.room(digits);
    let x = v;
    for (let i = this.at + digits - 1; i >= this.at; i--) {
      const q = Math.floor(x / 10);
      this.buf[i] = 48 + (x - q * 10);
      x = q;
    }
    this.at += digits;
  }

  /** A text value; null as `\N`. */
  text(s: string | null | undefined): void {
    if (s === null || s === undefined) {
      this.room(2);
      this.buf[this.at++] = 92;
      this.buf[this.at++] = 78;
      return;
    }
    if (!this.ascii(s)) this.utf8(copyText(s));
  }

  /** A string as a JSON string value (quoted), inside a COPY text value. */
  jsonString(s: string): void {
    const k = jsonPlain(s);
    if (k === 1) {
      this.room(s.length + 2);
      this.buf[this.at++] = 34;
      this.ascii(s);
      this.buf[this.at++] = 34;
    } else if (k === 2) {
      this.room(s.length * 3 + 2);
      this.buf[this.at++] = 34;
      this.at += this.buf.write(s, this.at, 'utf8');
      this.buf[this.at++] = 34;
    } else this.utf8(copyText(JSON.stringify(s)));
  }

  /**
   * Printable ASCII without a backslash (nothing to escape in COPY text) copied byte by byte, checked as it goes: short
   * values cost no call into the runtime. False (nothing written) for anything else.
   */
  private ascii(s: string): boolean {
    const n = s.length;
    this.room(n);
    const b = this.buf;
    let at = this.at;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 0x5c) return false;
      b[at++] = c;
    }
    this.at = at;
    return true;
  }

  private utf8(s: string): void {
    this.room(s.length * 3);
    this.at += this.buf.write(s, this.at, 'utf8');
  }
}

/**
 * 1: printable ASCII with no quote or backslash (JSON and COPY take it as it is); 2: the same with other characters
 * outside ASCII (no surrogate: written as UTF-8 as JSON.stringify would leave them); 0: needs escaping.
 */
function jsonPlain(s: string): 0 | 1 | 2 {
  let k: 1 | 2 = 1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) return 0;
    if (c > 0x7e) {
      if (c >= 0xd800 && c <= 0xdfff) return 0;
      k = 2;
    }
  }
  return k;
}

/** A value for COPY's text format: backslash, tab, newline and carriage return escaped. */
export function copyText(s: string): string {
  return /[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')) : s;
}
