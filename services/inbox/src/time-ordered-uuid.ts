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
const buf = Buffer.alloc(16);
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function timeOrderedUuid(now: number = Date.now()): string {
  randomFillSync(buf);
  let ms = Math.max(now, lastMs);
  if (ms === lastMs) {
    counter += 1;
    if (counter > 0xfff) {
      ms += 1;
      counter = buf[6] & 0x7f; // a fresh start, leaving room to count within the borrowed ms
    }
  } else {
    counter = ((buf[6] << 8) | buf[7]) & 0x7ff; // at most half the range: room to count within the ms
  }
  lastMs = ms;
  buf.writeUIntBE(ms, 0, 6);
  buf[6] = 0x70 | (counter >> 8);
  buf[7] = counter & 0xff;
  buf[8] = 0x80 | (buf[8] & 0x3f);
  let s = '';
  for (let i = 0; i < 16; i++) {
    s += HEX[buf[i]];
    if (i === 3 || i === 5 || i === 7 || i === 9) s += '-';
  }
  return s;
}
