import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export const PIN_LENGTH = 6;

/** A uniformly random PIN of `length` digits from the CSPRNG (leading zeros kept). */
export function generatePin(length = PIN_LENGTH): string {
  let pin = '';
  for (let i = 0; i < length; i++) pin += String(randomInt(0, 10));
  return pin;
}

export function newPinSalt(): string {
  return randomBytes(16).toString('base64url');
}

/** Only this keyed hash is stored: a leaked row does not show the PIN (and the PIN dies within minutes anyway). */
export function hashPin(pin: string, salt: string): string {
  return createHmac('sha256', salt).update(pin, 'utf8').digest('hex');
}

export function pinMatches(pin: string, salt: string, hash: string): boolean {
  const a = Buffer.from(hashPin(pin, salt), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface PinChallengeState {
  pinSalt: string;
  pinHash: string;
  expiresAt: Date;
  failedAttempts: number;
  consumedAt: Date | null;
}

/**
 * - accepted: the PIN is right and the challenge is open;
 * - wrong: a wrong PIN on an open challenge (the caller counts it; at `maxAttempts` the challenge ends);
 * - missing / used / exhausted / expired: the challenge is closed whatever PIN is given.
 */
export type PinVerdict = 'accepted' | 'wrong' | 'missing' | 'used' | 'exhausted' | 'expired';

export function judgePin(challenge: PinChallengeState | null, pin: string, now: Date, maxAttempts: number): PinVerdict {
  if (!challenge) return 'missing';
  if (challenge.consumedAt) return 'used';
  if (challenge.failedAttempts >= maxAttempts) return 'exhausted';
  if (now.getTime() >= challenge.expiresAt.getTime()) return 'expired';
  return pinMatches(pin, challenge.pinSalt, challenge.pinHash) ? 'accepted' : 'wrong';
}

/** Seconds until another PIN may be sent, or 0. A consumed challenge (the user signed in) does not hold the next one back. */
export function resendWait(last: { sentAt: Date; consumedAt: Date | null } | null, now: Date, resendAfterSeconds: number): number {
  if (!last || last.consumedAt) return 0;
  const ms = last.sentAt.getTime() + resendAfterSeconds * 1000 - now.getTime();
  return ms > 0 ? Math.ceil(ms / 1000) : 0;
}
