import type { Violation } from '@switchboard/contracts';

export const PASSWORD_MIN_LENGTH = 8;
/** bcrypt reads 72 bytes; a longer password would be silently cut, so it is refused instead. */
export const PASSWORD_MAX_BYTES = 72;

/** The rules a new password must meet (spec 5 has only "passwords must match", checked by the console). */
export function passwordViolations(password: string, propertyPath = 'password', email?: string): Violation[] {
  const out: Violation[] = [];
  if ([...password].length < PASSWORD_MIN_LENGTH) out.push({ propertyPath, message: `at least ${PASSWORD_MIN_LENGTH} characters`, code: 'min' });
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) out.push({ propertyPath, message: `at most ${PASSWORD_MAX_BYTES} bytes`, code: 'max' });
  if (password.trim() === '') out.push({ propertyPath, message: 'errors.client.required', code: 'required' });
  if (email && password.trim().toLowerCase() === email.trim().toLowerCase()) out.push({ propertyPath, message: 'must not be the email address', code: 'sameAsEmail' });
  return out;
}
