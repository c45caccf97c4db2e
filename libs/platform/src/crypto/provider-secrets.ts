import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Provider secrets (WhatsApp access tokens, Telegram bot tokens, webhook verify tokens, a Telegram login's code and
 * password) between the service that stores them (streams) and the one that uses them (dispatch):
 * AES-256-GCM under a key both are given (`PROVIDER_SECRETS_KEY`), bound to the stream they belong to (its uid is
 * the additional authenticated data, so a sealed value cannot be replayed onto another stream). Events and read
 * models carry the sealed text only; the plain value lives in the memory of the process that calls the provider.
 * See docs/decisions/0021-inbound-ownership-and-provider-secrets.md.
 */
export class ProviderSecrets {
  static readonly PREFIX = 'ps1:';
  private readonly key: Buffer;

  constructor(secret: string) {
    if (!secret || secret.length < 16) throw new Error('ProviderSecrets: the key must be at least 16 characters');
    this.key = createHash('sha256').update(`switchboard-provider-secrets:${secret}`).digest();
  }

  static isSealed(v: unknown): v is string {
    return typeof v === 'string' && v.startsWith(ProviderSecrets.PREFIX);
  }

  seal(boundTo: string, values: Record<string, string | null | undefined>): string {
    const clean = Object.fromEntries(Object.entries(values).filter(([, v]) => typeof v === 'string' && v !== ''));
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo, 'utf8'));
    const body = Buffer.concat([cipher.update(JSON.stringify(clean), 'utf8'), cipher.final()]);
    return `${ProviderSecrets.PREFIX}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** Throws when the text was not sealed with this key for `boundTo` (or was altered). */
  open(boundTo: string, sealed: string): Record<string, string> {
    if (!ProviderSecrets.isSealed(sealed)) throw new Error('ProviderSecrets: not a sealed value');
    const raw = Buffer.from(sealed.slice(ProviderSecrets.PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    return JSON.parse(plain) as Record<string, string>;
  }
}
