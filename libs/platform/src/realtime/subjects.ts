/**
 * NATS subject rules, shared by both realtime drivers so a pattern means the same thing in embedded and distributed
 * mode: tokens separated by `.`, never empty, no whitespace; `*` matches one token, `>` (last token only) one or more.
 */

const BAD_TOKEN = /[\s*>]/;

/** The realtime subject prefix: `rt.<accountId>.<topic>...`. */
export const REALTIME_PREFIX = 'rt';

export function isValidSubject(subject: string): boolean {
  if (!subject) return false;
  return subject.split('.').every((t) => t.length > 0 && !BAD_TOKEN.test(t));
}

export function isValidPattern(pattern: string): boolean {
  if (!pattern) return false;
  const tokens = pattern.split('.');
  return tokens.every((t, i) => {
    if (t === '*') return true;
    if (t === '>') return i === tokens.length - 1;
    return t.length > 0 && !BAD_TOKEN.test(t);
  });
}

export function assertSubject(subject: string): void {
  if (!isValidSubject(subject)) throw new Error(`invalid realtime subject ${JSON.stringify(subject)}`);
}

export function assertPattern(pattern: string): void {
  if (!isValidPattern(pattern)) throw new Error(`invalid realtime subject pattern ${JSON.stringify(pattern)}`);
}

export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}

/** `rt.<accountId>.<topic>...` -> `{ accountId, topic }`; null for subjects outside the realtime namespace. */
export function parseRealtimeSubject(subject: string): { accountId: string; topic: string } | null {
  const t = subject.split('.');
  if (t.length < 3 || t[0] !== REALTIME_PREFIX) return null;
  return { accountId: t[1], topic: t[2] };
}

/**
 * Checks a publish against the subject it goes to: a message must name the account and topic its subject
 * carries, since the gateway routes by subject and the browser checks the message's account.
 */
export function assertMessageMatchesSubject(subject: string, message: { accountId: string; topic: string }): void {
  assertSubject(subject);
  const parsed = parseRealtimeSubject(subject);
  if (!parsed) return;
  if (String(message.accountId) !== parsed.accountId) {
    throw new Error(`realtime message for account ${message.accountId} published to ${subject}`);
  }
  if (message.topic !== parsed.topic) throw new Error(`realtime message of topic ${message.topic} published to ${subject}`);
}
