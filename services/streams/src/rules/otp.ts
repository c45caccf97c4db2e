import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';

/** Spec 9: OTP defaults and options. */
export const OTP_DEFAULTS = {
  code_generator: 2,
  code_length: 5,
  ttl: 300,
  max_attempts: 10,
  max_attempts_ip: 10,
  max_failures: 10,
  cool_down_time: 1800,
} as const;
export const OTP_LENGTHS = [4, 5, 6, 7, 8] as const;
export const OTP_COOL_DOWNS = [60, 180, 300, 600, 1200, 1800] as const;
/** The code placeholder of the OTP message; the console keeps it out of the editable placeholders (spec 9). */
export const OTP_PLACEHOLDER = '{{code}}';
export const OTP_DEFAULT_MESSAGE = `Your verification code is ${OTP_PLACEHOLDER}`;

/** Generator types (docs/decisions/0014-streams.md): 1 letters and digits, 2 digits (the default), 3 letters. */
export const OtpGenerator = { Alphanumeric: 1, Numeric: 2, Alphabetic: 3 } as const;
export const OTP_GENERATORS = Object.values(OtpGenerator);

// No I/O/0/1 in the mixed sets: a person reads the code from a phone screen.
const DIGITS = '0123456789';
const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const MIXED = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export function generateOtpCode(generator: number, length: number): string {
  const alphabet = generator === OtpGenerator.Alphanumeric ? MIXED : generator === OtpGenerator.Alphabetic ? LETTERS : DIGITS;
  let code = '';
  for (let i = 0; i < length; i++) code += alphabet[randomInt(alphabet.length)];
  return code;
}

/** Codes are stored as an HMAC under the module secret, bound to stream and destination: a leaked table reveals nothing. */
export function otpCodeHash(secret: string, streamId: string, destination: string, code: string): Buffer {
  return createHmac('sha256', secret).update(`${streamId}\u0000${destination}\u0000${code.trim().toUpperCase()}`).digest();
}

export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export function renderOtpMessage(template: string, code: string): string {
  return template.split(OTP_PLACEHOLDER).join(code);
}
