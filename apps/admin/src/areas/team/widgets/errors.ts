import type { TranslateFunction } from 'react-admin';
import { isApiError } from '../../../providers/http';

/**
 * A validation message as the server or the client gives it: a key (`errors.client.xss`) or a plain text. Keys the
 * shell's catalogue lacks are looked up under `team.errors.client.*`; other keys are translated, and a plain text
 * (a server message that is not a key) is shown as it is.
 */
export function messageText(message: string, translate: TranslateFunction, options?: Record<string, unknown>): string {
  const m = /^errors\.client\.(\w+)$/.exec(message);
  if (!m) return translate(message, { ...options, _: message });
  return translate(message, { ...options, _: translate(`team.errors.client.${m[1]}`, { ...options, _: message }) });
}

/** The field errors of a 400 `0x1` answer, keyed by the first segment of `propertyPath`, translated. */
export function fieldErrors(error: unknown, translate: TranslateFunction): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isApiError(error) || error.status !== 400) return out;
  for (const v of error.body?.violations ?? []) {
    const field = v.propertyPath.split(/[.[]/)[0] || '_';
    if (!out[field]) out[field] = messageText(v.message, translate);
  }
  return out;
}

/**
 * One line for an error banner or toast: the server's message for a refusal it explains (403, 404, 409, 410, 429,
 * 503), a generic text otherwise.
 */
export function errorText(error: unknown, translate: TranslateFunction): string {
  if (!isApiError(error)) return translate('team.errors.generic');
  const body = error.body;
  if (error.status === 400) {
    const first = body?.violations?.[0];
    if (first) return `${first.propertyPath}: ${messageText(first.message, translate)}`;
  }
  if (error.status === 403 && !body?.message) return translate('team.errors.forbidden');
  if ([400, 403, 404, 409, 410, 422, 429, 503].includes(error.status) && body?.message) return body.message;
  return translate('team.errors.generic');
}
