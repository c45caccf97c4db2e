import { randomFillSync } from 'node:crypto';

/**
 * A version 7 UUID (RFC 9562): 48 bits of Unix time in ms, then 12 bits counting within the ms (started at a random
 * value each ms; a ms whose counter runs out borrows the next one), the variant, and 62 random bits. Successive calls
 * of one process give ascending values, so the inbox's rows keyed by them (a conversation's and a timeline event's
 * `uuid`, and the conversation's room `…|conversation:<uuid>` in the room log) append to the right edge of their
 * unique indexes instead of touching a random leaf each: a random key dirties a page of a large index for every row,
 * and the first change of each page after a checkpoint writes the whole page to the WAL (docs/decisions/0155). Still
 * unguessable (62 random bits, and a random counter start) and an ordinary uuid to every reader.
 */
let lastMs = 0;
let counter = 0;
// random bytes drawn 4 KB at a time (as node's own randomUUID does): one draw a call cost ten times the rest of it
const POOL = Buffer.alloc(4096);
let at = POOL.length;
/** The character codes of the 16 hex digits. */
const HEX_CODES = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const hi4 = (b: number): number => HEX_CODES[b >>> 4];
const lo4 = (b: number): number => HEX_CODES[b & 15];
const DASH = 45;

export function timeOrderedUuid(now: number = Date.now()): string {
  if (at + 10 > POOL.length) {
    randomFillSync(POOL);
    at = 0;
  }
  const r = at;
  at += 10;
  let ms = Math.max(now, lastMs);
  if (ms === lastMs) {
    counter += 1;
    if (counter > 0xfff) {
      ms += 1;
      counter = POOL[r] & 0x7f; // a fresh start, leaving room to count within the borrowed ms
    }
  } else {
    counter = ((POOL[r] << 8) | POOL[r + 1]) & 0x7ff; // at most half the range: room to count within the ms
  }
  lastMs = ms;
  // 48 bits of ms (exact in a double), version and counter, variant and 62 random bits
  const hi = Math.floor(ms / 0x10000);
  const lo = ms % 0x10000;
  const t0 = (hi >>> 24) & 0xff, t1 = (hi >>> 16) & 0xff, t2 = (hi >>> 8) & 0xff, t3 = hi & 0xff, t4 = lo >>> 8, t5 = lo & 0xff;
  const v0 = 0x70 | (counter >>> 8), v1 = counter & 0xff, v2 = 0x80 | (POOL[r + 2] & 0x3f), v3 = POOL[r + 3];
  const n0 = POOL[r + 4], n1 = POOL[r + 5], n2 = POOL[r + 6], n3 = POOL[r + 7], n4 = POOL[r + 8], n5 = POOL[r + 9];
  // one flat string from its 36 character codes: joining 20 pieces made a rope of ~17 intermediate strings, flattened
  // again on first use (~450 bytes allocated an id, against 56; docs/decisions/0194)
  return String.fromCharCode(
    hi4(t0), lo4(t0), hi4(t1), lo4(t1), hi4(t2), lo4(t2), hi4(t3), lo4(t3), DASH,
    hi4(t4), lo4(t4), hi4(t5), lo4(t5), DASH,
    hi4(v0), lo4(v0), hi4(v1), lo4(v1), DASH,
    hi4(v2), lo4(v2), hi4(v3), lo4(v3), DASH,
    hi4(n0), lo4(n0), hi4(n1), lo4(n1), hi4(n2), lo4(n2), hi4(n3), lo4(n3), hi4(n4), lo4(n4), hi4(n5), lo4(n5),
  );
}
