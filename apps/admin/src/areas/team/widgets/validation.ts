import { FORBIDDEN_CHARACTERS, PASSWORD_MIN } from '../constants';

/** Spec 5 client rules; each answers a message key (`errors.client.*`) or undefined. */
export type Rule = (value: string) => string | undefined;

export const required: Rule = (v) => (v.trim() === '' ? 'errors.client.required' : undefined);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const email: Rule = (v) => (v.trim() !== '' && !EMAIL.test(v.trim()) ? 'errors.client.email' : undefined);
export const noXss: Rule = (v) => (FORBIDDEN_CHARACTERS.test(v) ? 'errors.client.xss' : undefined);
/** Spec 5: "Character limit fails at or above the limit". */
export const charLimit =
  (limit: number): Rule =>
  (v) =>
    v.trim().length >= limit ? 'errors.client.charLimit' : undefined;
export const minPassword: Rule = (v) => (v !== '' && [...v].length < PASSWORD_MIN ? 'errors.client.passwordMin' : undefined);
export const sameAs =
  (other: string): Rule =>
  (v) =>
    v !== other ? 'errors.client.passwordsDontMatch' : undefined;

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}(\/(3[0-2]|[12]?\d))?$/;
/** IPv6 in its usual forms (full, compressed with ::, with an optional /mask); the server checks it again. */
function isIpv6(s: string): boolean {
  const [addr, mask, ...rest] = s.split('/');
  if (rest.length || (mask !== undefined && !/^(12[0-8]|1[01]\d|[1-9]?\d)$/.test(mask))) return false;
  if (!/^[0-9a-fA-F:]+$/.test(addr) || addr.includes(':::')) return false;
  const halves = addr.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((h) => (h === '' ? [] : h.split(':')));
  if (groups.some((g) => g.length < 1 || g.length > 4)) return false;
  return halves.length === 2 ? groups.length < 8 : groups.length === 8;
}

/** Spec 5: an IP list is IPv4 with an optional mask, or IPv6 (errors.client.ips). Entries are comma-separated. */
export const ipList: Rule = (v) => {
  const entries = v
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  return entries.every((e) => IPV4.test(e) || isIpv6(e)) ? undefined : 'errors.client.ips';
};

export const check = (value: string, ...rules: Rule[]): string | undefined => {
  for (const rule of rules) {
    const error = rule(value);
    if (error) return error;
  }
  return undefined;
};
