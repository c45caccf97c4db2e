import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, URL-safe: invite, reset and API key secrets are unguessable, so a plain SHA-256 is enough to store them. */
export const newSecret = (): string => randomBytes(32).toString('base64url');

export const sha256Hex = (raw: string): string => createHash('sha256').update(raw, 'utf8').digest('hex');

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
