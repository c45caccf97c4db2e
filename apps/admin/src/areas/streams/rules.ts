import { FORBIDDEN_CHARACTERS, OTP_PLACEHOLDER, SENDER_ALPHA_MAX, SENDER_ID_MIN, SENDER_NUMERIC_MAX } from './constants';

/** Spec 5 client rules; each answers a message key (`errors.client.*`) or undefined. */
export type Rule = (value: string) => string | undefined;

export const required: Rule = (v) => (v.trim() === '' ? 'errors.client.required' : undefined);
export const noXss: Rule = (v) => (FORBIDDEN_CHARACTERS.test(v) ? 'errors.client.xss' : undefined);
/** Spec 5: "Character limit fails at or above the limit". */
export const charLimit =
  (limit: number): Rule =>
  (v) =>
    v.trim().length >= limit ? 'errors.client.charLimit' : undefined;

const NUMERIC_SENDER = /^\+?\d+$/;
// Letters, digits and the separators operators accept; the server refuses the rest the same way.
const ALPHANUMERIC_SENDER = /^[A-Za-z0-9][A-Za-z0-9 ._&-]*$/;

export const isNumericSender = (v: string): boolean => NUMERIC_SENDER.test(v.trim());

/**
 * Spec 5, sender ID: at least 3 characters (alphaMin); a numeric ID at most 15 digits (numericMax); an alphanumeric
 * one at most 11 characters (alphaMax), of letters, digits, spaces and `. _ & -`.
 */
export const senderId: Rule = (raw) => {
  const v = raw.trim();
  if (v === '') return 'errors.client.required';
  if (v.length < SENDER_ID_MIN) return 'errors.client.alphaMin';
  if (NUMERIC_SENDER.test(v)) return v.replace(/^\+/, '').length > SENDER_NUMERIC_MAX ? 'errors.client.numericMax' : undefined;
  if (!ALPHANUMERIC_SENDER.test(v)) return 'errors.client.xss';
  if (v.length > SENDER_ALPHA_MAX) return 'errors.client.alphaMax';
  return undefined;
};

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}(\/(3[0-2]|[12]?\d))?$/;

/** IPv6 in its usual forms (full, compressed with ::, an embedded IPv4 tail, an optional /prefix); the server checks again. */
export function isIpv6(s: string): boolean {
  const [addr, mask, ...rest] = s.split('/');
  if (rest.length || (mask !== undefined && !/^(12[0-8]|1[01]\d|[1-9]?\d)$/.test(mask))) return false;
  let body = addr;
  const v4 = /:(\d+\.\d+\.\d+\.\d+)$/.exec(addr);
  if (v4) {
    if (!IPV4.test(v4[1])) return false;
    // the dotted tail stands for two groups
    body = `${addr.slice(0, v4.index)}:0:0`;
  }
  if (!/^[0-9a-fA-F:]+$/.test(body) || body.includes(':::')) return false;
  const halves = body.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((h) => (h === '' ? [] : h.split(':')));
  if (groups.some((g) => g.length < 1 || g.length > 4)) return false;
  return halves.length === 2 ? groups.length < 8 : groups.length === 8;
}

export const isIpEntry = (e: string): boolean => IPV4.test(e) || isIpv6(e);

/** Splits what a user typed into entries (commas, spaces, new lines). */
export const splitIps = (v: string): string[] =>
  v
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** Spec 5: an IP list is IPv4 with an optional mask, or IPv6 (errors.client.ips). */
export const ipList: Rule = (v) => (splitIps(v).every(isIpEntry) ? undefined : 'errors.client.ips');

/** Spec 5: a phone must be plausible, with or without a plus (impossiblePhoneNumber): 8 to 15 digits. */
export const phone: Rule = (raw) => {
  const v = raw.trim();
  if (v === '') return 'errors.client.required';
  const compact = v.replace(/[\s().-]/g, '');
  return /^\+?\d{8,15}$/.test(compact) ? undefined : 'errors.client.impossiblePhoneNumber';
};

/** Telegram bot destinations: a numeric chat id (groups are negative) or an @username. */
export const telegramChat: Rule = (raw) => {
  const v = raw.trim();
  if (v === '') return 'errors.client.required';
  return /^-?\d{3,20}$/.test(v) || /^@?[A-Za-z][A-Za-z0-9_]{4,31}$/.test(v) ? undefined : 'errors.client.invalidPhone';
};

export const otpMessage: Rule = (v) => (v.includes(OTP_PLACEHOLDER) ? undefined : 'errors.client.otpPlaceholder');

export const intRange =
  (min: number, max: number): Rule =>
  (v) => {
    if (v.trim() === '') return 'errors.client.required';
    if (!/^\d+$/.test(v.trim())) return 'errors.client.digits';
    const n = Number(v);
    if (n < min) return 'errors.client.minNumber';
    if (n > max) return 'errors.client.maxNumber';
    return undefined;
  };

/** Spec 5: key names are letters, digits, hyphen and underscore (invalidKey). */
export const eventKey: Rule = (v) => (v.trim() === '' ? 'errors.client.required' : /^[A-Za-z0-9_-]{1,64}$/.test(v.trim()) ? undefined : 'errors.client.invalidKey');

export const check = (value: string, ...rules: Rule[]): string | undefined => {
  for (const rule of rules) {
    const error = rule(value);
    if (error) return error;
  }
  return undefined;
};

/**
 * Spec 2, flag lookup from a phone number: a number starting with * or # is cut from its first "00"; a leading "00"
 * becomes "+"; "+" is added if missing; a number shorter than 8 characters gets no flag. Answers the normalised number.
 */
export function flagNumber(raw: string): string | null {
  let v = raw.trim();
  if (/^[*#]/.test(v)) {
    const at = v.indexOf('00');
    v = at >= 0 ? v.slice(at) : v;
  }
  if (v.startsWith('00')) v = `+${v.slice(2)}`;
  if (!v.startsWith('+')) v = `+${v}`;
  return v.length < 8 ? null : v;
}
