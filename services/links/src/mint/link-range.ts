/**
 * A batch variable's links as range rows of up to `PAGE` links each (docs/decisions/0092): the recipients of one row's
 * `links.link_range.recipients`, in batch order, each a small JSON array `[domain, "message uuid", "contact" | null,
 * "variant" | null, "destination", {variables} | null]` (the domain as its position in the row's `domain_ids`, the
 * variables only those the target uses), after a directory of (count + 1) big-endian 16-bit offsets from the row's
 * start. The rows of a variable are written as one value (`bytes()`) cut at `pageStarts()` by the insert; a row stays
 * small enough to be stored inline, so PostgreSQL reads a recipient from the row it found by its key: `links.link_of`.
 */
export class RecipientRecords {
  private buf: Buffer;
  private at = 0;
  private i = 0;
  private page = 0;
  private dir = 0;
  private readonly starts: number[] = [];

  constructor(private readonly count: number) {
    this.buf = Buffer.allocUnsafe(count * 160 + 64);
  }

  /** The finished value, every row's directory and recipients one after another. */
  bytes(): Buffer {
    if (this.i !== this.count) throw new Error(`RecipientRecords: ${this.i} of ${this.count} recipients written`);
    return this.buf.subarray(0, this.at);
  }

  /** Where each row starts in `bytes()`, and the end. */
  pageStarts(): number[] {
    return [...this.starts, this.at];
  }

  /**
   * One recipient. `used` are the target's variables (`names[k]` is `,"name":` and `opens[k]` `{"name":` as bytes).
   */
  add(domain: number, messageUuid: string, contactId: string | null, variantId: string | null, destination: string, used: readonly string[], opens: readonly Buffer[], names: readonly Buffer[], vars: Record<string, string>): void {
    const k = this.i % PAGE;
    if (k === 0) {
      // a new row: its directory first
      const inPage = Math.min(PAGE, this.count - this.i);
      this.starts.push(this.at);
      this.page = this.at;
      this.dir = this.at;
      this.room(2 * (inPage + 1));
      this.at += 2 * (inPage + 1);
    }
    this.buf.writeUInt16BE(this.at - this.page, this.dir + 2 * k);
    this.i++;
    this.byte(91); // [
    this.int(domain);
    this.byte(44);
    this.str(messageUuid);
    this.byte(44);
    this.idOrNull(contactId);
    this.byte(44);
    this.idOrNull(variantId);
    this.byte(44);
    this.str(destination);
    this.byte(44);
    if (used.length === 0) this.nil();
    else {
      let any = false;
      for (let u = 0; u < used.length; u++) {
        if (!Object.hasOwn(vars, used[u])) continue;
        const v = vars[used[u]];
        this.raw(any ? names[u] : opens[u]);
        any = true;
        if (typeof v === 'string') this.str(v);
        else this.utf8(JSON.stringify(v));
      }
      if (any) this.byte(125);
      else {
        this.byte(123);
        this.byte(125);
      }
    }
    this.byte(93); // ]
    if (this.at - this.page > 0xffff) throw new Error('RecipientRecords: a row of recipients over 64 KiB');
    // the row's end after its last recipient
    if (k === PAGE - 1 || this.i === this.count) this.buf.writeUInt16BE(this.at - this.page, this.dir + 2 * (k + 1));
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  private raw(b: Buffer): void {
    this.room(b.length);
    b.copy(this.buf, this.at);
    this.at += b.length;
  }

  private byte(c: number): void {
    this.room(1);
    this.buf[this.at++] = c;
  }

  private nil(): void {
    this.room(4);
    this.buf[this.at++] = 110;
    this.buf[this.at++] = 117;
    this.buf[this.at++] = 108;
    this.buf[this.at++] = 108;
  }

  private int(v: number): void {
    if (v < 10) this.byte(48 + v);
    else this.utf8(String(v));
  }

  private idOrNull(s: string | null): void {
    if (s === null || s === undefined) this.nil();
    else this.str(s);
  }

  /**
   * A JSON string: printable ASCII without quote or backslash copied byte by byte; other text without anything to
   * escape written as UTF-8; anything else as JSON.stringify writes it.
   */
  private str(s: string): void {
    const n = s.length;
    this.room(n * 3 + 2);
    const b = this.buf;
    let at = this.at;
    b[at++] = 34;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) break;
      b[at++] = c;
    }
    if (i < n) {
      if (!plainJson(s, i)) return this.utf8(JSON.stringify(s));
      at += b.write(s.slice(i), at, 'utf8');
    }
    b[at++] = 34;
    this.at = at;
  }

  private utf8(s: string): void {
    this.room(s.length * 3);
    this.at += this.buf.write(s, this.at, 'utf8');
  }
}

/** From `from` on, nothing JSON must escape (no control character, quote, backslash or lone surrogate). */
function plainJson(s: string, from: number): boolean {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

/** The number of sequence numbers in a code block: a batch variable's links are one block (a batch has at most 1000 items). */
export const CODE_BLOCK = 1024;
/** Links a range row at most: a row of recipients stays under PostgreSQL's 2 kB out-of-line threshold, so it is read inline. */
export const PAGE = 16;
