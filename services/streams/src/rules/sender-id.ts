import type { Violation } from '@switchboard/contracts';

/** Spec 5: sender IDs are at least 3 characters; numeric ones at most 15 digits; alphanumeric ones at most 11 characters. */
export const SENDER_ID_MIN = 3;
export const SENDER_NUMERIC_MAX = 15;
export const SENDER_ALPHA_MAX = 11;

const NUMERIC = /^\+?\d+$/;
// Letters, digits and a few separators operators accept; never the characters spec 5 calls forbidden (xss).
const ALPHANUMERIC = /^[A-Za-z0-9][A-Za-z0-9 ._&-]*$/;

export function isNumericSender(value: string): boolean {
  return NUMERIC.test(value);
}

/** Violations of the sender ID rules (translation keys of spec 5 as `code`), empty when valid. */
export function senderIdViolations(raw: unknown, propertyPath = 'value'): Violation[] {
  if (typeof raw !== 'string' || raw.trim() === '') return [{ propertyPath, message: 'sender ID is required', code: 'required' }];
  const value = raw.trim();
  if (value.length < SENDER_ID_MIN) return [{ propertyPath, message: `sender ID must have at least ${SENDER_ID_MIN} characters`, code: 'alphaMin' }];
  if (isNumericSender(value)) {
    const digits = value.replace(/^\+/, '').length;
    if (digits > SENDER_NUMERIC_MAX) return [{ propertyPath, message: `a numeric sender ID has at most ${SENDER_NUMERIC_MAX} digits`, code: 'numericMax' }];
    return [];
  }
  if (!ALPHANUMERIC.test(value)) return [{ propertyPath, message: 'a sender ID holds letters, digits, spaces and . _ & - only', code: 'xss' }];
  if (value.length > SENDER_ALPHA_MAX) return [{ propertyPath, message: `an alphanumeric sender ID has at most ${SENDER_ALPHA_MAX} characters`, code: 'alphaMax' }];
  return [];
}
