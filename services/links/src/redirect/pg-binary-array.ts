/**
 * One-dimensional PostgreSQL arrays in the binary wire format (`array_recv`), for the click group statement's
 * parameters (docs/decisions/0223): PostgreSQL reads each element with the type's receive function (a copy of 16 or
 * 8 bytes) instead of parsing its text (`uuid_in`, `float8in`, `int8in` behind `array_in`'s scan), about 2.4 µs of
 * backend CPU a click less. node-postgres sends a `Buffer` parameter in the binary format.
 *
 * A column is built as its elements' bytes (`ArrayBody`, each a 4-byte length and the value, -1 for NULL) so the
 * bodies of several chunks (a cluster's workers) join into one array without re-encoding (`binaryArray`).
 */

/** Element type oids (pg_type) of the arrays the group statement takes. */
export const OID = { bool: 16, int8: 20, int2: 21, int4: 23, text: 25, float8: 701, uuid: 2950 } as const;

export type ElementType = keyof typeof OID;

const WIDTH: Record<ElementType, number> = { bool: 1, int8: 8, int2: 2, int4: 4, text: 0, float8: 8, uuid: 16 };

/** The elements of an array column as PostgreSQL's binary format has them after its header. */
export interface ArrayBody {
  type: ElementType;
  n: number;
  /** Some element is NULL (the header says so). */
  nulls: boolean;
  bytes: Uint8Array;
}

const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = HEX[65 + i] = 10 + i;

function uuidInto(s: string, b: Uint8Array, at: number): void {
  let o = at;
  const end = o + 16;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 45) continue;
    const h = c < 128 ? HEX[c] : -1;
    const c2 = s.charCodeAt(++i);
    const l = c2 < 128 ? HEX[c2] : -1;
    if (h < 0 || l < 0 || o === end) throw new Error(`invalid uuid: ${s}`);
    b[o++] = (h << 4) | l;
  }
  if (o !== end) throw new Error(`invalid uuid: ${s}`);
}

/** A uuid's 16 bytes from its text (as `ArrayWriter.uuid` reads it), to keep and write again. */
export function uuidBytes(s: string): Uint8Array {
  const b = new Uint8Array(16);
  uuidInto(s, b, 0);
  return b;
}

/** Appends elements of one type; `body()` gives what was written. */
export class ArrayWriter {
  private buf: Buffer;
  private at = 0;
  private n = 0;
  private nulls = false;

  constructor(
    readonly type: ElementType,
    capacity: number,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(64, capacity * (4 + (WIDTH[type] || 16))));
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

  /** An int8 from its decimal text as PostgreSQL prints it (ids: exact beyond 2^53 too), or NULL. */
  int8Text(s: string | null): void {
    if (s === null) return this.null();
    this.room(12);
    this.buf.writeInt32BE(8, this.at);
    if (s.length <= 15) {
      const v = Number(s);
      if (s.length === 0 || !Number.isSafeInteger(v)) throw new Error(`not an integer: ${s}`);
      this.writeInt64(v, this.at + 4);
    } else this.buf.writeBigInt64BE(BigInt(s), this.at + 4);
    this.at += 12;
    this.n++;
  }

  /** An int8 from a safe integer. */
  int8(v: number): void {
    this.room(12);
    this.buf.writeInt32BE(8, this.at);
    this.writeInt64(v, this.at + 4);
    this.at += 12;
    this.n++;
  }

  private writeInt64(v: number, at: number): void {
    const hi = Math.floor(v / 4294967296);
    this.buf.writeInt32BE(hi | 0, at);
    this.buf.writeUInt32BE(v - hi * 4294967296, at + 4);
  }

  float8(v: number): void {
    this.room(12);
    this.buf.writeInt32BE(8, this.at);
    this.buf.writeDoubleBE(v, this.at + 4);
    this.at += 12;
    this.n++;
  }

  int4(v: number): void {
    this.room(8);
    this.buf.writeInt32BE(4, this.at);
    this.buf.writeInt32BE(v, this.at + 4);
    this.at += 8;
    this.n++;
  }

  int2(v: number): void {
    this.room(6);
    this.buf.writeInt32BE(2, this.at);
    this.buf.writeInt16BE(v, this.at + 4);
    this.at += 6;
    this.n++;
  }

  bool(v: boolean): void {
    this.room(5);
    this.buf.writeInt32BE(1, this.at);
    this.buf[this.at + 4] = v ? 1 : 0;
    this.at += 5;
    this.n++;
  }

  /** A uuid from its text (32 hex digits, dashes anywhere, as PostgreSQL's `uuid_in` takes them), or NULL. */
  uuid(s: string | null): void {
    if (s === null) return this.null();
    this.room(20);
    this.buf.writeInt32BE(16, this.at);
    uuidInto(s, this.buf, this.at + 4);
    this.at += 20;
    this.n++;
  }

  /** A uuid as its 16 bytes (`uuidBytes`), or NULL. */
  uuidBytes(b: Uint8Array | null): void {
    if (b === null) return this.null();
    this.room(20);
    this.buf.writeInt32BE(16, this.at);
    this.buf.set(b, this.at + 4);
    this.at += 20;
    this.n++;
  }

  /** A text (UTF-8), or NULL. */
  text(s: string | null): void {
    if (s === null) return this.null();
    const len = Buffer.byteLength(s, 'utf8');
    this.room(4 + len);
    this.buf.writeInt32BE(len, this.at);
    this.buf.write(s, this.at + 4, len, 'utf8');
    this.at += 4 + len;
    this.n++;
  }

  body(): ArrayBody {
    return { type: this.type, n: this.n, nulls: this.nulls, bytes: this.buf.subarray(0, this.at) };
  }
}

/** The array (header and elements) of the bodies, in order: one parameter in the binary format. */
export function binaryArray(type: ElementType, bodies: readonly ArrayBody[]): Buffer {
  let n = 0;
  let nulls = false;
  let size = 0;
  for (const b of bodies) {
    if (b.type !== type) throw new Error(`array of ${type} given a body of ${b.type}`);
    n += b.n;
    nulls ||= b.nulls;
    size += b.bytes.length;
  }
  if (n === 0) {
    // an empty array: no dimensions
    const e = Buffer.alloc(12);
    e.writeInt32BE(OID[type], 8);
    return e;
  }
  const out = Buffer.allocUnsafe(20 + size);
  out.writeInt32BE(1, 0);
  out.writeInt32BE(nulls ? 1 : 0, 4);
  out.writeInt32BE(OID[type], 8);
  out.writeInt32BE(n, 12);
  out.writeInt32BE(1, 16);
  let at = 20;
  for (const b of bodies) {
    out.set(b.bytes, at);
    at += b.bytes.length;
  }
  return out;
}

/** The elements of a body as values (tests, diagnostics): int8 as decimal text, uuid as its canonical text. */
export function arrayBodyValues(body: ArrayBody): Array<string | number | boolean | null> {
  const b = Buffer.from(body.bytes.buffer, body.bytes.byteOffset, body.bytes.byteLength);
  const out: Array<string | number | boolean | null> = [];
  for (let at = 0; at < b.length; ) {
    const len = b.readInt32BE(at);
    at += 4;
    if (len < 0) {
      out.push(null);
      continue;
    }
    switch (body.type) {
      case 'bool':
        out.push(b[at] === 1);
        break;
      case 'int2':
        out.push(b.readInt16BE(at));
        break;
      case 'int4':
        out.push(b.readInt32BE(at));
        break;
      case 'int8':
        out.push(b.readBigInt64BE(at).toString());
        break;
      case 'float8':
        out.push(b.readDoubleBE(at));
        break;
      case 'uuid': {
        const h = b.toString('hex', at, at + 16);
        out.push(`${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`);
        break;
      }
      case 'text':
        out.push(b.toString('utf8', at, at + len));
        break;
    }
    at += len;
  }
  return out;
}
