/**
 * SMS text encoding and segmentation (3GPP TS 23.038 / GSM 03.38, TS 23.040 concatenation).
 *
 * Pure, dependency-free and browser-safe (no Buffer) so that `streams` (pricing, the send-message counter) and `dispatch` (the wire) count
 * exactly the same septets and parts: a price quoted for N parts must match the N parts put on the wire.
 *
 * - GSM7: the basic set is one septet per character; the extension table (`^{}\[~]|€` and form feed) costs two
 *   septets (ESC + code). One part holds 160 septets; a concatenated part holds 153 (the 6-byte UDH eats 7 septets).
 *   A part never ends between ESC and its code.
 * - UCS2: UTF-16 code units, big-endian on the wire. One part holds 70 units, a concatenated part 67. A surrogate
 *   pair (emoji and other astral characters) counts two units and is never split across parts.
 * - Empty text is one (empty) part: an SMS with no body still costs one submit.
 */

export type SmsEncodingName = 'GSM7' | 'UCS2';

export interface SmsAnalysis {
  encoding: SmsEncodingName;
  /** Septets (escapes count 2) for GSM7, UTF-16 code units for UCS2. */
  units: number;
  segments: number;
  /** Capacity of one part at this length: 160/70 for a single part, 153/67 once concatenated. */
  perSegment: number;
  /** Units still free in the last part before another part is needed. */
  remaining: number;
}

export const GSM7_SINGLE = 160;
export const GSM7_MULTI = 153;
export const UCS2_SINGLE = 70;
export const UCS2_MULTI = 67;
/** Concatenation limit of the 8-bit reference UDH (one byte for the part count). */
export const MAX_SMS_PARTS = 255;

const ESC = 0x1b;

/** GSM 03.38 basic character set, index = septet value (0x1B is the escape to the extension table). */
const BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';

/** GSM 03.38 extension table: character -> code sent after ESC. */
const EXTENSION: ReadonlyArray<readonly [string, number]> = [
  ['\f', 0x0a],
  ['^', 0x14],
  ['{', 0x28],
  ['}', 0x29],
  ['\\', 0x2f],
  ['[', 0x3c],
  ['~', 0x3d],
  [']', 0x3e],
  ['|', 0x40],
  ['€', 0x65],
];

const EXT_FLAG = 0x100;
/** UTF-16 code unit -> septet (basic), EXT_FLAG | code (extension) or -1 (not in GSM7). One lookup per character. */
const TO_GSM = new Int16Array(0x10000).fill(-1);
const FROM_BASIC: string[] = [];
const FROM_EXT = new Map<number, string>();

if (BASIC.length !== 128) throw new Error(`GSM 03.38 basic table must have 128 entries, has ${BASIC.length}`);
for (let septet = 0; septet < 128; septet++) {
  const ch = BASIC[septet];
  FROM_BASIC.push(ch);
  if (septet !== ESC) TO_GSM[ch.charCodeAt(0)] = septet;
}
for (const [ch, code] of EXTENSION) {
  TO_GSM[ch.charCodeAt(0)] = EXT_FLAG | code;
  FROM_EXT.set(code, ch);
}

/** True when every character of `text` is in the GSM 03.38 basic set or extension table. */
export function isGsm7(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (TO_GSM[text.charCodeAt(i)] < 0) return false;
  }
  return true;
}

/** Septets one GSM7 character costs (1 basic, 2 extension), or 0 when it is not GSM7. */
export function gsm7CharCost(ch: string): number {
  const v = TO_GSM[ch.charCodeAt(0)];
  if (v < 0 || ch.length !== 1) return 0;
  return v & EXT_FLAG ? 2 : 1;
}

function gsm7Units(text: string): number {
  let units = 0;
  for (let i = 0; i < text.length; i++) units += TO_GSM[text.charCodeAt(i)] & EXT_FLAG ? 2 : 1;
  return units;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Length in units of each part, keeping escape sequences and surrogate pairs whole. */
function partLengths(text: string, encoding: SmsEncodingName): { parts: Array<[start: number, end: number]>; lastUnits: number } {
  const gsm = encoding === 'GSM7';
  const single = gsm ? GSM7_SINGLE : UCS2_SINGLE;
  const multi = gsm ? GSM7_MULTI : UCS2_MULTI;
  const total = gsm ? gsm7Units(text) : text.length;
  if (total <= single) return { parts: [[0, text.length]], lastUnits: total };
  const parts: Array<[number, number]> = [];
  let start = 0;
  let used = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    let width: number;
    let chars: number;
    if (gsm) {
      width = TO_GSM[code] & EXT_FLAG ? 2 : 1;
      chars = 1;
    } else if (isHighSurrogate(code) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      width = 2;
      chars = 2;
    } else {
      width = 1;
      chars = 1;
    }
    if (used + width > multi) {
      parts.push([start, i]);
      start = i;
      used = 0;
    }
    used += width;
    i += chars;
  }
  parts.push([start, text.length]);
  return { parts, lastUnits: used };
}

/** Encoding, length in units, parts and what is left in the last part: what the send-message counter shows. */
export function analyzeSms(text: string): SmsAnalysis {
  const encoding: SmsEncodingName = isGsm7(text) ? 'GSM7' : 'UCS2';
  const gsm = encoding === 'GSM7';
  const units = gsm ? gsm7Units(text) : text.length;
  const single = gsm ? GSM7_SINGLE : UCS2_SINGLE;
  if (units <= single) return { encoding, units, segments: 1, perSegment: single, remaining: single - units };
  const multi = gsm ? GSM7_MULTI : UCS2_MULTI;
  const { parts, lastUnits } = partLengths(text, encoding);
  return { encoding, units, segments: parts.length, perSegment: multi, remaining: multi - lastUnits };
}

/**
 * The text of each part, in order. A single-part message is returned whole; a long one is cut at 153 septets / 67
 * units, moving a whole escape sequence or surrogate pair to the next part rather than splitting it.
 */
export function splitSms(text: string, encoding: SmsEncodingName = isGsm7(text) ? 'GSM7' : 'UCS2'): string[] {
  if (encoding === 'GSM7' && !isGsm7(text)) throw new RangeError('text has characters outside GSM 03.38; use UCS2');
  return partLengths(text, encoding).parts.map(([s, e]) => text.slice(s, e));
}

/**
 * Unpacked GSM7 (one septet per byte), as SMPP data_coding 0 carries it: SMSCs take unpacked septets in
 * short_message and pack them for the air interface themselves.
 */
export function encodeGsm7(text: string): Uint8Array {
  const out = new Uint8Array(gsm7Units(text));
  let o = 0;
  for (let i = 0; i < text.length; i++) {
    const v = TO_GSM[text.charCodeAt(i)];
    if (v < 0) throw new RangeError(`character U+${text.charCodeAt(i).toString(16).padStart(4, '0')} is not in GSM 03.38`);
    if (v & EXT_FLAG) {
      out[o++] = ESC;
      out[o++] = v & 0x7f;
    } else {
      out[o++] = v;
    }
  }
  return out;
}

/**
 * Unpacked GSM7 to text. An escape followed by a code the extension table does not define shows the basic
 * character of that code (TS 23.038 6.2.1.1); a trailing lone escape is dropped.
 */
export function decodeGsm7(septets: Uint8Array): string {
  let out = '';
  for (let i = 0; i < septets.length; i++) {
    const v = septets[i] & 0x7f;
    if (v === ESC) {
      if (i + 1 >= septets.length) break;
      const code = septets[++i] & 0x7f;
      out += FROM_EXT.get(code) ?? (code === ESC ? ' ' : FROM_BASIC[code]);
    } else {
      out += FROM_BASIC[v];
    }
  }
  return out;
}

/** UTF-16 big-endian, as SMPP data_coding 8 carries UCS2 (surrogate pairs pass through as two units). */
export function encodeUcs2(text: string): Uint8Array {
  const out = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    out[2 * i] = code >> 8;
    out[2 * i + 1] = code & 0xff;
  }
  return out;
}

export function decodeUcs2(bytes: Uint8Array): string {
  const n = bytes.length >> 1;
  const codes = new Array<number>(n);
  for (let i = 0; i < n; i++) codes[i] = (bytes[2 * i] << 8) | bytes[2 * i + 1];
  let out = '';
  // Chunked so very long inputs do not exceed the argument limit of fromCharCode.
  for (let i = 0; i < n; i += 8192) out += String.fromCharCode(...codes.slice(i, i + 8192));
  return out;
}

/** The bytes of a text in the given encoding, ready for short_message / message_payload. */
export function encodeSms(text: string, encoding: SmsEncodingName): Uint8Array {
  return encoding === 'GSM7' ? encodeGsm7(text) : encodeUcs2(text);
}

/** SMPP data_coding for an encoding: 0 = SMSC default alphabet (GSM7), 8 = UCS2. */
export function smppDataCoding(encoding: SmsEncodingName): number {
  return encoding === 'GSM7' ? 0x00 : 0x08;
}

/**
 * 8-bit-reference concatenation UDH (IEI 0x00): UDHL 5, IEI 0, IEDL 3, reference, total, sequence (1-based).
 * Six bytes, which is why a concatenated GSM7 part holds 153 septets and a UCS2 part 67 units.
 */
export function concatUdh(reference: number, total: number, sequence: number): Uint8Array {
  if (total < 1 || total > MAX_SMS_PARTS || sequence < 1 || sequence > total) throw new RangeError('bad concatenation part');
  return Uint8Array.from([0x05, 0x00, 0x03, reference & 0xff, total, sequence]);
}

export interface ConcatInfo {
  reference: number;
  total: number;
  sequence: number;
  /** Bytes after the UDH. */
  body: Uint8Array;
}

/** Reads a concatenation UDH (8- or 16-bit reference) from a short_message with UDHI set; null when there is none. */
export function parseConcatUdh(message: Uint8Array): ConcatInfo | null {
  if (message.length < 1) return null;
  const udhl = message[0];
  if (udhl + 1 > message.length) return null;
  let p = 1;
  while (p + 1 < 1 + udhl) {
    const iei = message[p];
    const len = message[p + 1];
    if (iei === 0x00 && len === 3) return { reference: message[p + 2], total: message[p + 3], sequence: message[p + 4], body: message.subarray(1 + udhl) };
    if (iei === 0x08 && len === 4) {
      return { reference: (message[p + 2] << 8) | message[p + 3], total: message[p + 4], sequence: message[p + 5], body: message.subarray(1 + udhl) };
    }
    p += 2 + len;
  }
  return null;
}
