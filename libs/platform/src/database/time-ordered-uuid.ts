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
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

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
  return (
    HEX[(hi >>> 24) & 0xff] + HEX[(hi >>> 16) & 0xff] + HEX[(hi >>> 8) & 0xff] + HEX[hi & 0xff] + '-' +
    HEX[lo >>> 8] + HEX[lo & 0xff] + '-' +
    HEX[0x70 | (counter >>> 8)] + HEX[counter & 0xff] + '-' +
    HEX[0x80 | (POOL[r + 2] & 0x3f)] + HEX[POOL[r + 3]] + '-' +
    HEX[POOL[r + 4]] + HEX[POOL[r + 5]] + HEX[POOL[r + 6]] + HEX[POOL[r + 7]] + HEX[POOL[r + 8]] + HEX[POOL[r + 9]]
  );
}
