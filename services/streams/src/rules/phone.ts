import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { Metadata } from 'libphonenumber-js/core';
// The metadata bundle libphonenumber-js's default entry point ('libphonenumber-js', i.e. `min`) parses with.
import minMetadata from 'libphonenumber-js/metadata.min.json';

export interface NormalizedPhone {
  e164: string;
  iso2: string | null;
}

/**
 * A destination as the spec's flag lookup reads it (spec 2): separators dropped, a leading "00" becomes "+", "+" added
 * when missing; then it must be a valid number for its country. Null when it is not.
 *
 * A destination already written "+<digits>" (every campaign message's) is answered by `fastE164` when it can give the
 * library's answer without it; anything else goes to libphonenumber-js as before (decision 0198).
 */
export function normalizePhone(raw: unknown): NormalizedPhone | null {
  if (typeof raw === 'string' && E164_SHAPE.test(raw)) {
    const fast = fastE164(raw);
    if (fast !== undefined) return fast;
    return normalizeByLibrary(raw);
  }
  return normalizeByLibrary(raw);
}

/** The whole rule by libphonenumber-js (the only rule before 0198; still every input `fastE164` is not sure of). */
export function normalizeByLibrary(raw: unknown): NormalizedPhone | null {
  if (typeof raw !== 'string' && typeof raw !== 'number') return null;
  let s = String(raw).trim().replace(/[\s\-().]/g, '');
  if (!/^\+?\d{6,17}$/.test(s.replace(/^00/, '+'))) return null;
  if (s.startsWith('00')) s = `+${s.slice(2)}`;
  if (!s.startsWith('+')) s = `+${s}`;
  const parsed = parsePhoneNumberFromString(s);
  if (!parsed || !parsed.isValid()) return null;
  return { e164: parsed.number, iso2: parsed.country ?? null };
}

/**
 * "+" and 6–17 ASCII digits, the first not 0: `normalizeByLibrary` leaves such a string as it is (nothing to trim,
 * no separator, no "00", the plus present) before parsing it.
 */
const E164_SHAPE = /^\+[1-9]\d{5,16}$/;

/** What the library does with "+<calling code><rest>" for a calling code of one country (see `fastE164`). */
interface Plan {
  country: string;
  /** `^(?:national_prefix_for_parsing)`: when it matches the rest, the library may strip a prefix; not taken. */
  prefix: RegExp | null;
  /** `^(?:national_number_pattern)$`: `isValid` for a country without type patterns. */
  valid: RegExp;
}

/**
 * Every 1–3 digit string the library takes as a calling code (`Metadata.hasCallingCode`, its own predicate), with the
 * plan when the fast path can answer for it, null when the library must (calling codes shared by several countries,
 * non-geographic ones, countries with type patterns).
 */
const CALLING_CODES: ReadonlyMap<string, Plan | null> = buildPlans();

/** The parts of libphonenumber-js's `Metadata` (exported by `libphonenumber-js/core`, typed there only in part) read here. */
interface LibMetadata {
  hasCallingCode(code: string): boolean;
  getCountryCodesForCallingCode(code: string): string[] | undefined;
  selectNumberingPlan(countryOrCallingCode: string): void;
  numberingPlan?: { callingCode(): string; hasTypes(): boolean; nationalPrefixForParsing(): string | undefined; nationalNumberPattern(): string };
}

function buildPlans(): Map<string, Plan | null> {
  const plans = new Map<string, Plan | null>();
  try {
    addPlans(new (Metadata as unknown as new (json: unknown) => LibMetadata)(minMetadata), plans);
  } catch {
    plans.clear(); // a library whose internals moved: every number goes to the library
  }
  return plans;
}

function addPlans(metadata: LibMetadata, plans: Map<string, Plan | null>): void {
  for (let n = 1; n < 1000; n++) {
    const code = String(n);
    if (!metadata.hasCallingCode(code)) continue;
    const countries = metadata.getCountryCodesForCallingCode(code);
    if (!countries || countries.length !== 1 || !/^[A-Z]{2}$/.test(countries[0])) {
      plans.set(code, null);
      continue;
    }
    const country = countries[0];
    metadata.selectNumberingPlan(code);
    const plan = metadata.numberingPlan;
    if (!plan || plan.hasTypes() || plan.callingCode() !== code) {
      plans.set(code, null);
      continue;
    }
    const prefix = plan.nationalPrefixForParsing();
    plans.set(code, {
      country,
      prefix: prefix ? new RegExp(`^(?:${prefix})`) : null,
      valid: new RegExp(`^(?:${plan.nationalNumberPattern()})$`),
    });
  }
}

/**
 * libphonenumber-js's `parsePhoneNumberFromString(s)` then `isValid()` for `s` of E164_SHAPE, done with the same
 * metadata and the same patterns for the case that needs nothing else: the calling code (the first of its 1, 2, 3
 * leading digits the library knows, as it scans) belongs to one country without type patterns, and that country's
 * national prefix for parsing does not match the rest. Then the national number is the rest, the country is the calling
 * code's only one, and validity is the national number pattern matching it entirely. Undefined when not sure (the caller
 * asks the library).
 */
export function fastE164(s: string): NormalizedPhone | null | undefined {
  let plan: Plan | null | undefined;
  let at = 2;
  for (; at <= 4; at++) {
    plan = CALLING_CODES.get(s.slice(1, at));
    if (plan !== undefined) break;
  }
  if (!plan) return undefined; // unknown calling code, or one the library must read
  const rest = s.slice(at);
  if (rest.length < 2 || rest.length > 17) return undefined;
  if (plan.prefix && plan.prefix.test(rest)) return undefined;
  return plan.valid.test(rest) ? { e164: s, iso2: plan.country } : null;
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
