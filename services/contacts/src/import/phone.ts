import { parsePhoneNumberFromString, type CountryCode, type PhoneNumber } from 'libphonenumber-js/max';
import { timezoneOfCountry } from './country-timezones';

/**
 * Parse states as stored (smallint) in staging and rejected rows; the API shows the names of ContactState.
 * Kept free of other modules: this file also runs inside the import worker threads.
 */
export const PhoneState = { Ok: 0, Invalid: 1, NotMobile: 2, Blacklist: 3, Duplicate: 4 } as const;
export type PhoneStateCode = (typeof PhoneState)[keyof typeof PhoneState];

export interface NormalizedPhone {
  state: PhoneStateCode;
  /** E.164, set for valid numbers (mobile or not). */
  e164: string | null;
  country: string | null;
  timezone: string | null;
  error: string | null;
}

const DIGITS_ONLY = /^[\d\s().\-/]+$/;

function parse(text: string, country?: string): PhoneNumber | undefined {
  try {
    return parsePhoneNumberFromString(text, country ? { defaultCountry: country as CountryCode, extract: false } : { extract: false });
  } catch {
    return undefined;
  }
}

/**
 * Normalises a phone number as written in a file or a form: `+44 7700 900123`, `0044...`, `447700900123`, or a
 * national number with the row's (or the import's) default country. libphonenumber-js with its full metadata
 * decides validity and type: `getType()` is undefined exactly when the number is invalid, so one call decides
 * both. With `requireMobile`, a valid number that is not a mobile (or fixed-line-or-mobile) one is `not mobile`.
 */
export function normalizePhone(raw: string, defaultCountry: string | null, requireMobile: boolean): NormalizedPhone {
  // a leading apostrophe is how spreadsheets (and our exports) keep a number as text
  const text = raw.trim().replace(/^'/, '');
  if (!text) return { state: PhoneState.Invalid, e164: null, country: null, timezone: null, error: 'phone is empty' };
  if (text.length > 64) return { state: PhoneState.Invalid, e164: null, country: null, timezone: null, error: 'phone is too long' };
  let p: PhoneNumber | undefined;
  if (text.startsWith('+')) {
    p = parse(text);
  } else if (text.startsWith('00') && DIGITS_ONLY.test(text)) {
    p = parse(`+${text.slice(2)}`);
  } else {
    if (defaultCountry) p = parse(text, defaultCountry);
    // a country code written without its plus, as spreadsheets keep numbers
    if ((!p || !p.getType()) && DIGITS_ONLY.test(text)) {
      const intl = parse(`+${text}`);
      if (intl?.getType() || !p) p = intl;
    }
  }
  if (!p) return { state: PhoneState.Invalid, e164: null, country: null, timezone: null, error: 'not a phone number' };
  const type = p.getType();
  if (!type) return { state: PhoneState.Invalid, e164: null, country: p.country ?? null, timezone: null, error: 'invalid phone number' };
  const country = p.country ?? null;
  const out: NormalizedPhone = { state: PhoneState.Ok, e164: p.number, country, timezone: timezoneOfCountry(country), error: null };
  if (requireMobile && type !== 'MOBILE' && type !== 'FIXED_LINE_OR_MOBILE') {
    out.state = PhoneState.NotMobile;
    out.error = `not a mobile number (${type.toLowerCase().replace(/_/g, ' ')})`;
  }
  return out;
}
