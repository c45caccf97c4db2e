import { Metadata } from 'libphonenumber-js/core';
import { parsePhoneNumberFromString, type CountryCode, type NumberType } from 'libphonenumber-js/max';
import maxMetadata from 'libphonenumber-js/max/metadata';
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

/** What the normaliser needs of a parsed number: libphonenumber-js's PhoneNumber, or the fast path's own. */
interface Parsed {
  number: string;
  country?: string;
  getType(): NumberType;
}

function parse(text: string, country?: string): Parsed | undefined {
  const fast = country ? parseNational(text, country) : parseInternational(text);
  if (fast !== FALLBACK) return fast;
  try {
    return parsePhoneNumberFromString(text, country ? { defaultCountry: country as CountryCode, extract: false } : { extract: false });
  } catch {
    return undefined;
  }
}

// --- the fast path for international numbers ------------------------------------------------------------------
//
// libphonenumber-js builds a RegExp from the metadata's pattern text for every test (`matchesEntirely`), creates a
// metadata wrapper per call and throws (with a stack trace) for every malformed input: on a file of a million rows
// that is most of an import's CPU. A number written internationally (`+`, or `00` / no prefix tried as such) only
// needs what `parse()` and `getType()` do for that case: the calling code (1 to 3 digits), the national number (no
// national prefix stripped, unless the plan's prefix-for-parsing could match: then libphonenumber-js decides), the
// country among those sharing the code (leading digits, else the first whose patterns accept it), and the type
// from the same patterns, compiled once. The result is libphonenumber-js's own, which a test checks on hundreds of
// thousands of numbers; anything else (national numbers, letters, extensions, non-geographic codes) goes to it.

const FALLBACK = Symbol('fallback');
const NUMBER_WITH_PLUS = /^\+[\d ().\-/]+$/;
/** What a written number may hold besides its digits (and a leading `+`) for the fast paths. */
const FORMATTING = /[ ().\-/]/g;
const NON_FIXED_LINE_TYPES = ['MOBILE', 'PREMIUM_RATE', 'TOLL_FREE', 'SHARED_COST', 'VOIP', 'PERSONAL_NUMBER', 'PAGER', 'UAN', 'VOICEMAIL'] as const;

interface TypeRule {
  re: RegExp;
  lengths: number[] | undefined;
}
interface Plan {
  callingCode: string;
  nationalNumber: RegExp;
  possibleLengths: number[] | undefined;
  idd: RegExp | null;
  transformRule: string | undefined;
  leadingDigits: RegExp | null;
  prefixForParsing: RegExp | null;
  /** By type name; absent when the metadata has no such type or an empty pattern. */
  types: Map<string, TypeRule>;
  /** MOBILE is present with an empty pattern (it equals FIXED_LINE's). */
  mobileSameAsFixed: boolean;
  hasMobile: boolean;
}

/** The parts of libphonenumber-js's Metadata used here (its typings show only the constructor). */
interface MetadataApi {
  selectNumberingPlan(c: string): void;
  hasCallingCode(cc: string): boolean;
  getCountryCodesForCallingCode(cc: string): string[] | undefined;
  hasCountry(c: string): boolean;
  numberingPlan: {
    callingCode(): string;
    possibleLengths(): number[] | undefined;
    IDDPrefix(): string | undefined;
    nationalPrefixTransformRule(): string | undefined;
    nationalNumberPattern(): string;
    leadingDigits(): string | undefined;
    nationalPrefixForParsing(): string | undefined;
    type(t: string): { pattern(): string; possibleLengths(): number[] | undefined } | undefined;
  };
}

const metadata = new Metadata(maxMetadata) as unknown as MetadataApi;
const plans = new Map<string, Plan>();
const callingCodes = new Map<string, boolean>();

function planOf(key: string): Plan {
  let p = plans.get(key);
  if (p) return p;
  metadata.selectNumberingPlan(key);
  const np = metadata.numberingPlan;
  const types = new Map<string, TypeRule>();
  for (const t of ['FIXED_LINE', ...NON_FIXED_LINE_TYPES]) {
    const def = np.type(t);
    if (def && def.pattern()) types.set(t, { re: new RegExp(`^(?:${def.pattern()})$`), lengths: def.possibleLengths() });
  }
  const mobile = np.type('MOBILE');
  const leading = np.leadingDigits();
  const npfp = np.nationalPrefixForParsing();
  const idd = np.IDDPrefix();
  p = {
    callingCode: np.callingCode(),
    possibleLengths: np.possibleLengths(),
    idd: idd ? new RegExp(`^(?:${idd})`) : null,
    transformRule: np.nationalPrefixTransformRule(),
    nationalNumber: new RegExp(`^(?:${np.nationalNumberPattern()})$`),
    leadingDigits: leading ? new RegExp(`^(?:${leading})`) : null,
    prefixForParsing: npfp ? new RegExp(`^(?:${npfp})`) : null,
    types,
    mobileSameAsFixed: !!mobile && mobile.pattern() === '',
    hasMobile: !!mobile,
  };
  plans.set(key, p);
  return p;
}

const isType = (p: Plan, type: string, nsn: string): boolean => {
  const t = p.types.get(type);
  if (!t) return false;
  if (t.lengths && t.lengths.indexOf(nsn.length) < 0) return false;
  return t.re.test(nsn);
};

/** libphonenumber-js's getNumberType, on compiled patterns. */
function numberType(p: Plan, nsn: string): NumberType {
  if (!p.nationalNumber.test(nsn)) return undefined;
  if (isType(p, 'FIXED_LINE', nsn)) {
    if (p.mobileSameAsFixed || !p.hasMobile || isType(p, 'MOBILE', nsn)) return 'FIXED_LINE_OR_MOBILE';
    return 'FIXED_LINE';
  }
  for (const t of NON_FIXED_LINE_TYPES) if (isType(p, t, nsn)) return t;
  return undefined;
}

function hasCallingCode(cc: string): boolean {
  let known = callingCodes.get(cc);
  if (known === undefined) {
    known = !!metadata.hasCallingCode(cc);
    callingCodes.set(cc, known);
  }
  return known;
}

/** The country among those sharing a calling code (libphonenumber-js's getCountryByCallingCode). */
function countryByCallingCode(cc: string, nsn: string): string | undefined | typeof FALLBACK {
  const countries = metadata.getCountryCodesForCallingCode(cc);
  if (!countries || countries.includes('001')) return FALLBACK;
  if (countries.length === 1) return countries[0];
  for (const c of countries) {
    const p = planOf(c);
    if (p.leadingDigits ? p.leadingDigits.test(nsn) : numberType(p, nsn) !== undefined) return c;
  }
  return undefined;
}

/** libphonenumber-js's checkNumberLength (no type): how the length compares with the plan's possible lengths. */
function lengthCheck(nsn: string, p: Plan): 'IS_POSSIBLE' | 'TOO_SHORT' | 'TOO_LONG' | 'INVALID_LENGTH' {
  const lengths = p.possibleLengths;
  if (!lengths) return 'IS_POSSIBLE';
  const n = nsn.length;
  if (lengths[0] === n) return 'IS_POSSIBLE';
  if (lengths[0] > n) return 'TOO_SHORT';
  if (lengths[lengths.length - 1] < n) return 'TOO_LONG';
  return lengths.indexOf(n, 1) >= 0 ? 'IS_POSSIBLE' : 'INVALID_LENGTH';
}

/** libphonenumber-js's extractNationalNumber: the number without its national (trunk) prefix, when it has one. */
function withoutNationalPrefix(number: string, p: Plan): string | typeof FALLBACK {
  const m = p.prefixForParsing?.exec(number);
  if (!m) return number;
  // a rule rewriting the number (a few countries' carrier codes): libphonenumber-js's own business
  if (p.transformRule && m.length > 1 && m[m.length - 1]) return FALLBACK;
  const nsn = number.slice(m[0].length);
  if (nsn === number) return number;
  if (p.nationalNumber.test(number) && !p.nationalNumber.test(nsn)) return number;
  if (p.possibleLengths) {
    const country = countryByCallingCode(p.callingCode, nsn);
    if (country === FALLBACK) return FALLBACK;
    const check = lengthCheck(nsn, country ? planOf(country) : p);
    if (check === 'TOO_SHORT' || check === 'INVALID_LENGTH') return number;
  }
  return nsn;
}

const NATIONAL_NUMBER = /^[\d ().\-/]+$/;

/**
 * Digits with spaces, brackets, dots, dashes or slashes and no `+`, read with a default country as
 * libphonenumber-js reads them (a national number, or one starting with the country's calling code); FALLBACK
 * where this path does not decide (an international dialling prefix, unusual prefix rules).
 */
export function parseNational(text: string, region: string): Parsed | undefined | typeof FALLBACK {
  if (!NATIONAL_NUMBER.test(text)) return FALLBACK;
  const digits = text.replace(FORMATTING, '');
  if (digits.length < 3 || !metadata.hasCountry(region)) return FALLBACK;
  const home = planOf(region);
  if (home.idd && home.idd.test(digits)) return FALLBACK;
  let cc = home.callingCode;
  let plan = home;
  let number = digits;
  let country: string | undefined = region;
  // the country's calling code written without its plus
  if (digits.startsWith(cc)) {
    const shorter = digits.slice(cc.length);
    const nnShorter = withoutNationalPrefix(shorter, home);
    const nn = withoutNationalPrefix(digits, home);
    if (nnShorter === FALLBACK || nn === FALLBACK) return FALLBACK;
    if ((!home.nationalNumber.test(nn) && home.nationalNumber.test(nnShorter)) || lengthCheck(nn, home) === 'TOO_LONG') {
      number = shorter;
      plan = planOf(cc);
      country = undefined;
    }
  }
  const nsn = withoutNationalPrefix(number, plan);
  if (nsn === FALLBACK) return FALLBACK;
  const exact = countryByCallingCode(cc, nsn);
  if (exact === FALLBACK) return FALLBACK;
  if (exact) country = exact;
  if (nsn.length < 2 || nsn.length > 17) return undefined;
  const type = numberType(country ? planOf(country) : planOf(cc), nsn);
  cc = plan.callingCode;
  return { number: `+${cc}${nsn}`, country, getType: () => type };
}

/**
 * `+` and digits with spaces, brackets, dots, dashes or slashes, read as libphonenumber-js reads them; undefined
 * where it finds no number; FALLBACK where this path does not decide.
 */
export function parseInternational(text: string): Parsed | undefined | typeof FALLBACK {
  if (!NUMBER_WITH_PLUS.test(text)) return FALLBACK;
  const digits = text.slice(1).replace(FORMATTING, '');
  if (digits.length < 3) return FALLBACK;
  // calling codes never start with 0
  if (digits.charCodeAt(0) === 48) return undefined;
  let cc = '';
  for (let i = 1; i <= 3 && i <= digits.length; i++) {
    if (hasCallingCode(digits.slice(0, i))) {
      cc = digits.slice(0, i);
      break;
    }
  }
  if (!cc) return undefined;
  const nsn = digits.slice(cc.length);
  const main = planOf(cc);
  // a national prefix after the calling code: libphonenumber-js may strip it, under rules kept to itself
  if (main.prefixForParsing && main.prefixForParsing.test(nsn)) return FALLBACK;
  const country = countryByCallingCode(cc, nsn);
  if (country === FALLBACK) return FALLBACK;
  if (nsn.length < 2 || nsn.length > 17) return undefined;
  const type = numberType(country ? planOf(country) : main, nsn);
  return { number: `+${cc}${nsn}`, country, getType: () => type };
}

/**
 * Results by what decides them (the text, or `+` and its digits for a number written internationally, the
 * default country, whether a mobile is required): a file repeats numbers, written one way or another, and its
 * garbage (`n/a`, `-`). Cleared when full, so a worker's memory stays flat.
 */
const results = new Map<string, NormalizedPhone>();
const RESULTS_LIMIT = 50_000;

function resultKey(text: string, defaultCountry: string | null, requireMobile: boolean): string {
  const mode = requireMobile ? 'm' : 'a';
  if (text.charCodeAt(0) === 43 /* + */ && NUMBER_WITH_PLUS.test(text)) return mode + text.replace(FORMATTING, '');
  if (text.startsWith('00') && NUMBER_WITH_PLUS.test(`+${text.slice(2)}`)) return `${mode}+${text.slice(2).replace(FORMATTING, '')}`;
  return `${mode}${defaultCountry ?? ''}|${text}`;
}

/**
 * Normalises a phone number as written in a file or a form: `+44 7700 900123`, `0044...`, `447700900123`, or a
 * national number with the row's (or the import's) default country. libphonenumber-js with its full metadata
 * decides validity and type: `getType()` is undefined exactly when the number is invalid, so one call decides
 * both. With `requireMobile`, a valid number that is not a mobile (or fixed-line-or-mobile) one is `not mobile`.
 */
export function normalizePhone(raw: string, defaultCountry: string | null, requireMobile: boolean): Readonly<NormalizedPhone> {
  // a leading apostrophe is how spreadsheets (and our exports) keep a number as text
  let text = raw.trim();
  if (text.charCodeAt(0) === 39) text = text.slice(1);
  if (!text) return { state: PhoneState.Invalid, e164: null, country: null, timezone: null, error: 'phone is empty' };
  if (text.length > 64) return { state: PhoneState.Invalid, e164: null, country: null, timezone: null, error: 'phone is too long' };
  const key = resultKey(text, defaultCountry, requireMobile);
  let out = results.get(key);
  if (!out) {
    // shared by every row with this number: frozen, so that no caller changes it for the others
    out = Object.freeze(normalize(text, defaultCountry, requireMobile));
    if (results.size >= RESULTS_LIMIT) results.clear();
    results.set(key, out);
  }
  return out;
}

function normalize(text: string, defaultCountry: string | null, requireMobile: boolean): NormalizedPhone {
  let p: Parsed | undefined;
  let type: NumberType;
  if (text.startsWith('+')) {
    p = parse(text);
    type = p?.getType();
  } else if (text.startsWith('00') && DIGITS_ONLY.test(text)) {
    p = parse(`+${text.slice(2)}`);
    type = p?.getType();
  } else {
    if (defaultCountry) p = parse(text, defaultCountry);
    type = p?.getType();
    // a country code written without its plus, as spreadsheets keep numbers
    if (!type && DIGITS_ONLY.test(text)) {
      const intl = parse(`+${text}`);
      const intlType = intl?.getType();
      if (intlType || !p) {
        p = intl;
        type = intlType;
      }
    }
  }
  if (!p) return { state: PhoneState.Invalid, e164: null, country: null, timezone: null, error: 'not a phone number' };
  if (!type) return { state: PhoneState.Invalid, e164: null, country: p.country ?? null, timezone: null, error: 'invalid phone number' };
  const country = p.country ?? null;
  const out: NormalizedPhone = { state: PhoneState.Ok, e164: p.number, country, timezone: timezoneOfCountry(country), error: null };
  if (requireMobile && type !== 'MOBILE' && type !== 'FIXED_LINE_OR_MOBILE') {
    out.state = PhoneState.NotMobile;
    out.error = `not a mobile number (${type.toLowerCase().replace(/_/g, ' ')})`;
  }
  return out;
}
