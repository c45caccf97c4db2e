import type { TranslateFunction } from 'react-admin';
import { isApiError } from '../providers/http';

/**
 * Spec 8: a 401 shows errors.server.{code or status}, falling back to errors.server.other; a throttled call (429)
 * shows the server's own message; anything else errors.server.other.
 */
export function serverErrorText(error: unknown, translate: TranslateFunction): string {
  const other = translate('errors.server.other');
  if (!isApiError(error)) return other;
  if (error.status === 401) return translate(`errors.server.${error.body?.code ?? error.status}`, { _: other });
  if (error.status === 429) return error.body?.message || translate(`errors.server.${error.body?.code ?? 429}`, { _: other });
  return other;
}
