/** Emails are compared and stored lower-cased and trimmed. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** `john@example.com` -> `j***@example.com`: enough for the PIN step to say where the code went, not enough to harvest addresses. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  const local = email.slice(0, at);
  return `${local[0]}***${email.slice(at)}`;
}
