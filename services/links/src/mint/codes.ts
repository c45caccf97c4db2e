import { createCipheriv, createHmac, type Cipher } from 'node:crypto';

/**
 * Short-link codes (docs/decisions/0034-links-redirect-and-clicks.md): a code is a number of a per-deployment sequence
 * put through a keyed permutation of [0, 62^7) and written as 7 base62 characters. A permutation maps distinct
 * sequence numbers to distinct codes, so minting never meets a collision and never retries; the key (derived from
 * `LINKS_CODE_SECRET`) keeps the order of the sequence out of the codes, so a code says nothing about its neighbours.
 *
 * The permutation is an alternating Feistel network over the mixed radix 62^3 × 62^4 (the construction of NIST FF1,
 * with the halves of unequal size), 10 rounds, each round's function AES-128 of (round, value) truncated to 48 bits and
 * reduced modulo the half's size. Every round is one AES-ECB call over the whole batch, so a million codes cost ten
 * bulk AES passes plus the arithmetic, not a million HMACs.
 */

export const CODE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const CODE_LENGTH = 7;
const SMALL = 62 ** 3; // 238,328
const LARGE = 62 ** 4; // 14,776,336
/** How many codes there are: 62^7 = 3,521,614,606,208. */
export const CODE_SPACE = SMALL * LARGE;
const ROUNDS = 10;
const CHUNK = 65_536;

const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < CODE_ALPHABET.length; i++) DIGIT[CODE_ALPHABET.charCodeAt(i)] = i;

export class CodeCipher {
  /**
   * One AES-128-ECB context for every round: ECB keeps no state between blocks and every input is whole blocks, so
   * `update` answers each round's blocks at once without a new context (a context costs more than a few blocks; the
   * redirect decrypts the codes of one lookup at a time, docs/decisions/0092).
   */
  private readonly ecb: Cipher;

  constructor(secret: string) {
    if (secret.length < 16) throw new Error('CodeCipher: the code secret must have at least 16 characters');
    const key = createHmac('sha256', secret).update('switchboard.links.codes.v1').digest().subarray(0, 16);
    this.ecb = createCipheriv('aes-128-ecb', key, null);
    this.ecb.setAutoPadding(false);
  }

  /** The code values (each in [0, CODE_SPACE)) of `count` consecutive sequence numbers from `first`. */
  encryptRange(first: number, count: number): Float64Array {
    const out = new Float64Array(count);
    for (let i = 0; i < count; i++) out[i] = first + i;
    this.encryptInPlace(out);
    return out;
  }

  /** Replaces each sequence number in `values` (each in [0, CODE_SPACE)) by its code value. */
  encryptInPlace(values: Float64Array): void {
    for (let start = 0; start < values.length; start += CHUNK) this.encryptChunk(values.subarray(start, Math.min(values.length, start + CHUNK)), false);
  }

  /** Replaces each code value in `values` (each in [0, CODE_SPACE)) by its sequence number (the inverse permutation). */
  decryptInPlace(values: Float64Array): void {
    for (let start = 0; start < values.length; start += CHUNK) this.encryptChunk(values.subarray(start, Math.min(values.length, start + CHUNK)), true);
  }

  /** The sequence number of a code value (the inverse permutation). */
  decrypt(value: number): number {
    const v = new Float64Array([value]);
    this.encryptChunk(v, true);
    return v[0];
  }

  encrypt(seq: number): number {
    const v = new Float64Array([seq]);
    this.encryptChunk(v, false);
    return v[0];
  }

  private encryptChunk(values: Float64Array, inverse: boolean): void {
    const n = values.length;
    // state: left in [0, SMALL) and right in [0, LARGE) at the even rounds, the other way round at the odd ones
    const left = new Float64Array(n);
    const right = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const x = values[i];
      if (!(x >= 0 && x < CODE_SPACE) || !Number.isInteger(x)) throw new RangeError(`CodeCipher: ${x} is outside [0, 62^7)`);
      const hi = Math.floor(x / LARGE);
      left[i] = hi;
      right[i] = x - hi * LARGE;
    }
    const block = Buffer.alloc(n * 16);
    if (!inverse) {
      for (let r = 0; r < ROUNDS; r++) {
        // (L, R) -> (R, L + F(R)); L's modulus is SMALL at even rounds, LARGE at odd ones
        const mod = r % 2 === 0 ? SMALL : LARGE;
        const f = this.round(r, right, block);
        for (let i = 0; i < n; i++) {
          const next = modulo(left[i] + f[i], mod);
          left[i] = right[i];
          right[i] = next;
        }
      }
    } else {
      for (let r = ROUNDS - 1; r >= 0; r--) {
        // undo: (L', R') = (R, L + F(R))  =>  R = L', L = R' - F(L')
        const mod = r % 2 === 0 ? SMALL : LARGE;
        const f = this.round(r, left, block);
        for (let i = 0; i < n; i++) {
          const prev = modulo(right[i] - f[i], mod);
          right[i] = left[i];
          left[i] = prev;
        }
      }
    }
    for (let i = 0; i < n; i++) values[i] = left[i] * LARGE + right[i];
  }

  /** F_r over every value at once: AES-128(key, [r, 0 x 11, value as 4 bytes]) as a 48-bit number. */
  private round(r: number, input: Float64Array, block: Buffer): Float64Array {
    const n = input.length;
    // bytes 1..11 of every block stay zero (Buffer.alloc): only the round and the value are written
    for (let i = 0, o = 0; i < n; i++, o += 16) {
      const v = input[i];
      block[o] = r;
      block[o + 12] = v >>> 24;
      block[o + 13] = (v >>> 16) & 255;
      block[o + 14] = (v >>> 8) & 255;
      block[o + 15] = v & 255;
    }
    const enc = this.ecb.update(block);
    const f = new Float64Array(n);
    for (let i = 0, o = 0; i < n; i++, o += 16) {
      f[i] = ((enc[o] << 8) | enc[o + 1]) * 4294967296 + ((enc[o + 2] << 24) >>> 0) + ((enc[o + 3] << 16) | (enc[o + 4] << 8) | enc[o + 5]);
    }
    return f;
  }
}

/**
 * `x` modulo `m` in [0, m), exact for integers |x| < 2^52 and 0 < m < 2^31 (docs/decisions/0147): a double division,
 * floor and one correction, where `%` on doubles beyond int32 calls the C library's fmod (about 20 ns a value). The
 * quotient's rounding is off by at most one, and q * m and x - q * m are exact in a double.
 */
function modulo(x: number, m: number): number {
  const r = x - Math.floor(x / m) * m;
  return r < 0 ? r + m : r >= m ? r - m : r;
}

const CHAR = Array.from(CODE_ALPHABET, (c) => c.charCodeAt(0));
const CHARS = new Uint8Array(CHAR);

/** A code value as its 7 characters (one string built from the 7 digits, no string per digit). */
export function encodeCode(value: number): string {
  let v = value;
  const d6 = v % 62;
  v = (v - d6) / 62;
  const d5 = v % 62;
  v = (v - d5) / 62;
  const d4 = v % 62;
  v = (v - d4) / 62;
  const d3 = v % 62;
  v = (v - d3) / 62;
  const d2 = v % 62;
  v = (v - d2) / 62;
  const d1 = v % 62;
  v = (v - d1) / 62;
  const d0 = v % 62;
  return String.fromCharCode(CHAR[d0], CHAR[d1], CHAR[d2], CHAR[d3], CHAR[d4], CHAR[d5], CHAR[d6]);
}

/**
 * Code values as one text of 7 characters each, in order (docs/decisions/0141): the digits written into one buffer and
 * read as one string, not a string a code joined.
 */
export function encodeCodes(values: ArrayLike<number>): string {
  const n = values.length;
  const b = Buffer.allocUnsafe(n * CODE_LENGTH);
  for (let i = 0, o = 0; i < n; i++, o += CODE_LENGTH) {
    // the value as its 3 high digits and 4 low ones, each part an int32: integer division, no fmod a digit
    const v = values[i];
    let lo = modulo(v, LARGE);
    let hi = (v - lo) / LARGE;
    for (let k = CODE_LENGTH - 1; k >= 3; k--) {
      const d = lo % 62 | 0;
      b[o + k] = CHARS[d];
      lo = ((lo - d) / 62) | 0;
    }
    for (let k = 2; k >= 0; k--) {
      const d = hi % 62 | 0;
      b[o + k] = CHARS[d];
      hi = ((hi - d) / 62) | 0;
    }
  }
  return b.toString('latin1');
}

/** The value of a 7-character code; -1 when `code` is not one (wrong length or character). */
export function decodeCode(code: string): number {
  if (code.length !== CODE_LENGTH) return -1;
  let v = 0;
  for (let i = 0; i < CODE_LENGTH; i++) {
    const c = code.charCodeAt(i);
    const d = c < 128 ? DIGIT[c] : -1;
    if (d < 0) return -1;
    v = v * 62 + d;
  }
  return v;
}
