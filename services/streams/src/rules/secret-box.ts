import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for what the console must show again (stream tokens, provider tokens). The key is derived from the
 * module's secret; `v1:` leaves room for a key rotation.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string) {
    if (!secret || secret.length < 16) throw new Error('StreamsModule: secret must be at least 16 characters');
    this.key = createHash('sha256').update(`switchboard-streams:${secret}`).digest();
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open(sealed: string): string {
    if (!sealed.startsWith('v1:')) throw new Error('unknown secret format');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/** Stream tokens: `sbs_` and 32 characters of base64url (192 random bits). Looked up by their SHA-256. */
export function newStreamToken(): string {
  return `sbs_${randomBytes(24).toString('base64url')}`;
}

export function tokenHash(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** `sbs_abcd…wxyz`: enough to recognise a token without showing it. */
export function maskSecret(secret: string | null | undefined): string | null {
  if (!secret) return null;
  if (secret.length <= 8) return '****';
  return `${secret.slice(0, 4)}…${secret.slice(-4)}`;
}

/** The verify token of a stream's provider webhook (WhatsApp hub.verify_token): shown by the console, checked by dispatch. */
export function webhookVerifyToken(secret: string, streamUid: string): string {
  return createHmac('sha256', secret).update(`verify:${streamUid}`).digest('base64url').slice(0, 32);
}
