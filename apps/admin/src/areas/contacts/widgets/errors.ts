import type { TranslateFunction } from 'react-admin';
import { isApiError } from '../../../providers/http';

/** Server messages that are translation keys of spec 5 (bare, like `phoneVarMust`, or under `errors.client.`). */
const KNOWN_KEYS = new Set(['phoneVarMust', 'notSameVars', 'uniqVarName', 'invalidKey', 'impossiblePhoneNumber', 'fileTooLarge', 'duplicate']);

/** A validation message as the server or the client gives it: a key is translated, a plain text shown as it is. */
export function messageText(message: string, translate: TranslateFunction): string {
  const client = /^errors\.client\.(\w+)$/.exec(message);
  if (client) return translate(message, { _: translate(`contacts.errors.client.${client[1]}`, { _: message }) });
  if (KNOWN_KEYS.has(message)) return translate(`contacts.errors.client.${message}`, { _: message });
  return message;
}

/** The field errors of a 400 `0x1` answer, keyed by `propertyPath` and by its first segment, translated. */
export function fieldErrors(error: unknown, translate: TranslateFunction): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isApiError(error) || (error.status !== 400 && error.status !== 413)) return out;
  for (const v of error.body?.violations ?? []) {
    const text = messageText(v.message, translate);
    if (!out[v.propertyPath]) out[v.propertyPath] = text;
    const field = v.propertyPath.split(/[.[]/)[0] || '_';
    if (!out[field]) out[field] = text;
  }
  return out;
}

/**
 * One line for an error banner or toast: the first violation of a 400, the server's message for a refusal it
 * explains (403, 404, 409, 413, 422, 429, 503), a generic text otherwise.
 */
export function errorText(error: unknown, translate: TranslateFunction): string {
  if (error instanceof Error && error.message === 'task is not ready yet') return translate('contacts.errors.taskNotReady');
  if (!isApiError(error)) return translate('contacts.errors.generic');
  const body = error.body;
  if (error.status === 400 || error.status === 413) {
    const first = body?.violations?.[0];
    if (first) return messageText(first.message, translate);
  }
  if (error.status === 409 && body?.message === 'task is not ready yet') return translate('contacts.errors.taskNotReady');
  if (error.status === 403 && !body?.message) return translate('contacts.errors.forbidden');
  if (error.status === 0) return translate('contacts.errors.network');
  if ([400, 403, 404, 409, 413, 422, 429, 503].includes(error.status) && body?.message) return body.message;
  return translate('contacts.errors.generic');
}

export const isAbort = (e: unknown): boolean => e instanceof DOMException && e.name === 'AbortError';
