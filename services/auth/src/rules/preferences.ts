import type { Violation } from '@switchboard/contracts';

/** The fixed preference keys of spec 3. */
export const PREFERENCE_KEYS = [
  'PAGE_SIZE',
  'PINNED_CAMPAIGN',
  'PINNED_STREAM',
  'HAS_SEEN_SUCCESS_FIRST_STEPS',
  'MESSAGE_SENDER_ID',
  'SENT_ACCESS_REQUEST',
  'HAS_COMPLETED_INBOX_ONBOARDING',
] as const;

const FIXED = new Set<string>(PREFERENCE_KEYS);
export const MAX_PREFERENCES_BYTES = 16 * 1024;
export const MAX_PREFERENCE_KEYS = 100;
const MAX_DEPTH = 5;

/**
 * The spec's `{token}` key: a per-item key the console makes up (e.g. a table or widget id). Rule
 * (docs/decisions/0004-authentication.md): 8 to 128 characters of letters, digits, `_ - . :`, starting with a letter or
 * digit, and NOT shaped like a constant name (only capitals and underscores), so a misspelt fixed key such as
 * `PAGE_SIZES` is refused rather than stored as a token.
 */
export function isTokenKey(key: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_.:-]{7,127}$/.test(key) && !/^[A-Z_]+$/.test(key);
}

export function isPreferenceKey(key: string): boolean {
  return FIXED.has(key) || isTokenKey(key);
}

/** Why a value is refused, or null. Values are a primitive or an object/array, never empty (spec 5). */
export function preferenceValueProblem(value: unknown, depth = 0): string | null {
  if (value === null || value === undefined) return 'must not be empty';
  switch (typeof value) {
    case 'string':
      return value.trim() === '' ? 'must not be empty' : null;
    case 'number':
      return Number.isFinite(value) ? null : 'must be a finite number';
    case 'boolean':
      return null;
    case 'object': {
      if (depth >= MAX_DEPTH) return `must not nest deeper than ${MAX_DEPTH} levels`;
      const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
      if (entries.length === 0) return 'must not be empty';
      for (const [, v] of entries) {
        // inside an object, null is a legitimate "nothing pinned" value; only the top-level value must be non-empty
        if (v === null) continue;
        const p = preferenceValueProblem(v, depth + 1);
        if (p && p !== 'must not be empty') return p;
      }
      return null;
    }
    default:
      return 'must be a primitive or an object';
  }
}

export interface PreferencesResult {
  value: Record<string, unknown>;
  violations: Violation[];
}

/**
 * Validates the `preferences` of PUT /users/connected_update: a JSON string of an object (what the console sends,
 * matching what GET /users/connected returns) or the object itself. The result replaces the stored preferences.
 */
export function validatePreferences(input: unknown): PreferencesResult {
  let obj: unknown = input;
  if (typeof input === 'string') {
    try {
      obj = JSON.parse(input);
    } catch {
      return { value: {}, violations: [{ propertyPath: 'preferences', message: 'must be a JSON object', code: 'invalidJson' }] };
    }
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    return { value: {}, violations: [{ propertyPath: 'preferences', message: 'must be a JSON object', code: 'notObject' }] };
  }
  const value = obj as Record<string, unknown>;
  const violations: Violation[] = [];
  const keys = Object.keys(value);
  if (keys.length > MAX_PREFERENCE_KEYS) {
    violations.push({ propertyPath: 'preferences', message: `must have at most ${MAX_PREFERENCE_KEYS} keys`, code: 'tooManyKeys' });
  }
  for (const key of keys) {
    if (!isPreferenceKey(key)) {
      violations.push({ propertyPath: `preferences.${key}`, message: 'unknown preference key', code: 'unknownKey' });
      continue;
    }
    const problem = preferenceValueProblem(value[key]);
    if (problem) violations.push({ propertyPath: `preferences.${key}`, message: problem, code: 'invalidValue' });
  }
  if (!violations.length && Buffer.byteLength(JSON.stringify(value), 'utf8') > MAX_PREFERENCES_BYTES) {
    violations.push({ propertyPath: 'preferences', message: `must be at most ${MAX_PREFERENCES_BYTES} bytes of JSON`, code: 'tooLarge' });
  }
  return { value, violations };
}
