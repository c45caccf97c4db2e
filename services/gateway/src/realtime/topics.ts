import { ErrorCode } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';

/**
 * Topics a browser may follow on `/realtime` (spec section 7, "Live data"). Each maps to the subjects
 * `rt.<caller's account>.<topic>` and `rt.<caller's account>.<topic>.>`. Kept here until a second consumer needs it.
 */
export const REALTIME_TOPICS = [
  'campaigns',
  'streams',
  'messages',
  'contacts',
  'contact_lists',
  'imports',
  'tasks',
  'inbox',
  'notifications',
  'dashboard',
  'domains',
  'accounts',
] as const;

export type RealtimeTopic = (typeof REALTIME_TOPICS)[number];

const UNSAFE = /[.*>\s]/;

/**
 * Reads the repeated `topic` parameters. The spec's client sends "topic and account id": a value that is a number
 * is read as the account id, which may only be the caller's own (the account always comes from the token).
 */
export function parseTopics(raw: unknown, callerAccountId: string, allowed: readonly string[] = REALTIME_TOPICS): string[] {
  const values = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((v) => (typeof v === 'string' ? v.trim() : v));
  const topics = new Set<string>();
  values.forEach((value, i) => {
    const path = `topic[${i}]`;
    if (typeof value !== 'string' || !value) throw AppError.validation([{ propertyPath: path, message: 'must be a topic name' }]);
    if (/^\d+$/.test(value)) {
      if (value !== callerAccountId) throw AppError.forbidden('realtime events of another account', ErrorCode.AccessDenied);
      return;
    }
    if (UNSAFE.test(value)) throw AppError.validation([{ propertyPath: path, message: 'must not contain dots, wildcards or spaces' }]);
    if (!allowed.includes(value)) throw AppError.validation([{ propertyPath: path, message: `unknown topic; one of ${allowed.join(', ')}` }]);
    topics.add(value);
  });
  if (topics.size === 0) throw AppError.validation([{ propertyPath: 'topic', message: 'at least one topic is required' }]);
  return [...topics];
}

/** The subjects one topic of one account covers: the resource itself and everything under it. */
export function topicPatterns(accountId: string, topic: string): [string, string] {
  return [`rt.${accountId}.${topic}`, `rt.${accountId}.${topic}.>`];
}
