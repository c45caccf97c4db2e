import type { TranslateFunction } from 'react-admin';
import { isApiError } from '../../../providers/http';

/** A client rule's key (`errors.client.x`) in this area's catalogue. */
export const clientError = (key: string | undefined, translate: TranslateFunction, options?: Record<string, unknown>): string =>
  key ? translate(key.replace(/^errors\./, 'campaigns.errors.'), { _: key, ...options }) : '';

/** One line for a toast or banner: the server's first violation or message, else a generic text. */
export function errorText(error: unknown, translate: TranslateFunction): string {
  if (!isApiError(error)) return translate('campaigns.errors.generic');
  const body = error.body;
  const first = body?.violations?.[0];
  if (first) return /^errors\.client\./.test(first.message) ? clientError(first.message, translate) : `${first.propertyPath}: ${first.message}`;
  if (error.status === 0) return translate('campaigns.errors.network');
  return body?.message ?? translate('campaigns.errors.generic');
}

/** The field errors of a 400, keyed by the first segment of `propertyPath`. */
export function fieldErrors(error: unknown, translate: TranslateFunction): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isApiError(error) || error.status !== 400) return out;
  for (const v of error.body?.violations ?? []) {
    const field = v.propertyPath.split(/[.[]/)[0] || '_';
    out[field] ??= /^errors\.client\./.test(v.message) ? clientError(v.message, translate) : v.message;
  }
  return out;
}
