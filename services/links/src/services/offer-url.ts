import type { Violation } from '@switchboard/contracts';

const VARIABLE = /\{([A-Za-z_][A-Za-z0-9_]{0,63})\}/g;
const DOUBLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}/g;

/**
 * An offer URL with its variables in the one form it is stored and filled in, `{firstName}`: the message texts' form
 * `{{firstName}}` is accepted too (a newcomer writes what the message takes), and stored as `{firstName}`.
 */
export function normalizeOfferUrl(url: string): string {
  return url.replace(DOUBLE, '{$1}');
}

/** The recipient variables an offer URL uses (`{firstName}`), in order of first appearance. */
export function urlVariables(url: string): string[] {
  return [...new Set([...url.matchAll(VARIABLE)].map((m) => m[1]))];
}

/**
 * The URL checks (spec 5, two variants): a plain absolute http(s) URL, or one with recipient variables. Variables
 * may stand in the path, query or fragment only: the scheme and host are literal, so no recipient's value can send the
 * click to another site. No credentials, no spaces, balanced braces. Returns the violations (none: valid).
 */
export function checkOfferUrl(raw: unknown, path = 'originalUrl'): Violation[] {
  const bad = (message: string): Violation[] => [{ propertyPath: path, message, code: 'url' }];
  if (typeof raw !== 'string' || raw.trim() === '') return [{ propertyPath: path, message: 'the target URL', code: 'required' }];
  const url = raw.trim();
  if (url.length > 2048) return bad('at most 2048 characters');
  if (/\s/.test(url)) return bad('a URL has no spaces (withoutSpaces)');
  const head = /^(https?):\/\/([^/?#]*)/i.exec(url);
  if (!head) return bad('an absolute http:// or https:// URL');
  if (/[{}]/.test(head[2])) return bad('variables may not stand in the scheme or host, only in the path, query or fragment');
  // every brace belongs to a {variable}
  if (/[{}]/.test(url.replace(VARIABLE, ''))) return bad('a variable is {name}: letters, digits and underscore');
  let parsed: URL;
  try {
    parsed = new URL(url.replace(VARIABLE, 'x'));
  } catch {
    return bad('not a valid URL');
  }
  if (parsed.username || parsed.password) return bad('a URL without user name or password');
  if (!/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/i.test(parsed.hostname) && !/^\d{1,3}(\.\d{1,3}){3}$/.test(parsed.hostname)) {
    return bad('the host is a domain name');
  }
  return [];
}
