import type { MediaKindValue } from '@switchboard/contracts';

/**
 * The type of a file from its first bytes, never from its name or the client's Content-Type (docs/decisions/0035):
 * the formats WhatsApp and Telegram take per kind. Own signatures rather than `file-type` (21.x is ESM only; this
 * service builds to CommonJS). Null when the bytes are none of them.
 */
export function sniff(b: Buffer): string | null {
  const at = (off: number, sig: number[]) => sig.every((x, i) => b[off + i] === x);
  const ascii = (off: number, s: string) => b.length >= off + s.length && b.toString('latin1', off, off + s.length) === s;
  if (at(0, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (ascii(0, 'GIF87a') || ascii(0, 'GIF89a')) return 'image/gif';
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'image/webp';
  if (ascii(4, 'ftyp')) {
    const brand = b.toString('latin1', 8, 12);
    if (/^3g/.test(brand)) return 'video/3gpp';
    if (/^M4A/.test(brand)) return 'audio/mp4';
    return 'video/mp4';
  }
  if (ascii(0, '%PDF-')) return 'application/pdf';
  if (at(0, [0x50, 0x4b, 0x03, 0x04])) {
    const head = b.toString('latin1', 0, Math.min(b.length, 4096));
    if (head.includes('word/')) return 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
    if (head.includes('xl/')) return 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
    if (head.includes('ppt/')) return 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
    return 'application/zip';
  }
  if (at(0, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return 'application/msword';
  if (ascii(0, 'OggS')) return 'audio/ogg';
  if (ascii(0, 'ID3') || (b[0] === 0xff && b.length > 1 && (b[1] & 0xe6) === 0xe2)) return 'audio/mpeg';
  if (b[0] === 0xff && b.length > 1 && (b[1] & 0xf6) === 0xf0) return 'audio/aac';
  if (ascii(0, '#!AMR')) return 'audio/amr';
  const text = b.toString('utf8', 0, Math.min(b.length, 64)).replace(/^\uFEFF/, '').trimStart();
  if (/^BEGIN:VCARD/i.test(text)) return 'text/vcard';
  if (text.startsWith('{')) {
    try {
      const j = JSON.parse(b.toString('utf8')) as { latitude?: unknown; longitude?: unknown };
      if (typeof j.latitude === 'number' && typeof j.longitude === 'number' && Math.abs(j.latitude) <= 90 && Math.abs(j.longitude) <= 180) return 'application/vnd.geo+json';
    } catch {
      return null;
    }
  }
  return null;
}

/** What each kind accepts. */
export const KIND_TYPES: Readonly<Record<MediaKindValue, readonly string[]>> = {
  image: ['image/jpeg', 'image/png'],
  video: ['video/mp4', 'video/3gpp'],
  document: [
    'application/pdf',
    'application/msword',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ],
  audio: ['audio/aac', 'audio/mp4', 'audio/mpeg', 'audio/amr', 'audio/ogg'],
  sticker: ['image/webp'],
  contact: ['text/vcard'],
  location: ['application/vnd.geo+json'],
};
