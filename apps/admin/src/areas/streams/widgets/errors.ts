import type { TranslateFunction } from 'react-admin';
import { isApiError } from '../../../providers/http';

/** Violation codes the catalogue translates (`streams.errors.client.<code>`); any other violation shows the server's message. */
const KNOWN_CODES = new Set([
  'required',
  'alphaMin',
  'alphaMax',
  'numericMax',
  'senderExists',
  'ips',
  'xss',
  'charLimit',
  'impossiblePhoneNumber',
  'invalidPhone',
  'invalidKey',
  'sameKey',
  'digits',
  'onlyPositive',
  'maxNumber',
  'minNumber',
  'otpPlaceholder',
]);

/**
 * A client rule's key (`errors.client.alphaMax`) or a server violation code, translated from this area's catalogue;
 * a plain text is shown as it is.
 */
export function messageText(message: string, translate: TranslateFunction, options?: Record<string, unknown>): string {
  const m = /^errors\.client\.(\w+)$/.exec(message);
  if (!m) return message;
  return translate(`streams.errors.client.${m[1]}`, { ...options, _: translate(message, { ...options, _: message }) });
}

export interface FieldError {
  message: string;
  code?: string;
}

/**
 * The field errors of a 400 `0x1` (or 409 with violations) answer, keyed by the `propertyPath` with any index cut
 * (`ipAcl[2]` -> `ipAcl`, `params.ttl` stays `params.ttl`), translated by code when the catalogue knows it.
 */
export function fieldErrors(error: unknown, translate: TranslateFunction, options?: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isApiError(error) || (error.status !== 400 && error.status !== 409)) return out;
  for (const v of error.body?.violations ?? []) {
    const field = v.propertyPath.replace(/\[\d+\]$/, '') || '_';
    if (out[field]) continue;
    const code = (v as { code?: string }).code;
    out[field] = code && KNOWN_CODES.has(code) ? translate(`streams.errors.client.${code}`, { ...options, _: v.message }) : v.message;
  }
  return out;
}

/** The API error code (`0x13`, `E-0159`, ...) of a failed call, if any. */
export const errorCode = (error: unknown): string | undefined => (isApiError(error) && error.body?.code !== undefined ? String(error.body.code) : undefined);

/**
 * One line for an error banner or toast: the catalogue's text for the spec 8 codes (`streams.errors.server.<code>`),
 * else the server's message for a refusal it explains, else a generic text.
 */
export function errorText(error: unknown, translate: TranslateFunction): string {
  if (!isApiError(error)) return translate('streams.errors.generic');
  const body = error.body;
  const code = body?.code !== undefined ? String(body.code) : '';
  if (code && code !== '0x1' && code !== '0x0') {
    const known = translate(`streams.errors.server.${code}`, { _: '' });
    if (known) return known;
  }
  if (error.status === 400) {
    const first = body?.violations?.[0];
    if (first) return `${first.propertyPath}: ${first.message}`;
  }
  if (error.status === 403 && !body?.message) return translate('streams.errors.forbidden');
  if ([400, 403, 404, 409, 410, 422, 429, 502, 503].includes(error.status) && body?.message) return body.message;
  return translate('streams.errors.generic');
}
