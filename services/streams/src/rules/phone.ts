import { parsePhoneNumberFromString } from 'libphonenumber-js';

export interface NormalizedPhone {
  e164: string;
  iso2: string | null;
}

/**
 * A destination as the spec's flag lookup reads it (spec 2): separators dropped, a leading "00" becomes "+", "+" added
 * when missing; then it must be a valid number for its country. Null when it is not.
 */
export function normalizePhone(raw: unknown): NormalizedPhone | null {
  if (typeof raw !== 'string' && typeof raw !== 'number') return null;
  let s = String(raw).trim().replace(/[\s\-().]/g, '');
  if (!/^\+?\d{6,17}$/.test(s.replace(/^00/, '+'))) return null;
  if (s.startsWith('00')) s = `+${s.slice(2)}`;
  if (!s.startsWith('+')) s = `+${s}`;
  const parsed = parsePhoneNumberFromString(s);
  if (!parsed || !parsed.isValid()) return null;
  return { e164: parsed.number, iso2: parsed.country ?? null };
}

/** Telegram destinations: a numeric chat id (groups are negative) or an @username. */
export function normalizeTelegramChat(raw: unknown): string | null {
  if (typeof raw === 'number' && Number.isInteger(raw)) return String(raw);
  if (typeof raw !== 'string') return null;
  const s = raw.trim();
  if (/^-?\d{1,20}$/.test(s)) return s;
  if (/^@[A-Za-z][A-Za-z0-9_]{4,31}$/.test(s)) return s;
  return null;
}
