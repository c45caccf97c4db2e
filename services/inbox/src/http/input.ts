import type { z } from 'zod';
import { AppError } from '@switchboard/platform';

/** Parses a body or query with a zod schema; a failure is 400 `0x1` with one violation per issue, nothing changed. */
export function parse<T extends z.ZodTypeAny>(schema: T, value: unknown): z.infer<T> {
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data as z.infer<T>;
  throw AppError.validation(r.error.issues.map((i) => ({ propertyPath: i.path.join('.') || '(body)', message: i.message, code: i.code })));
}

/** An id of a row: a number, a decimal string or an IRI `/api/<collection>/<id>`. Null when it is none of them. */
export function refId(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return String(v);
  if (typeof v !== 'string') return null;
  const m = /^(?:\/api\/[a-z_]+\/)?(\d{1,18})$/.exec(v.trim());
  return m && m[1] !== '0' ? m[1].replace(/^0+/, '') : null;
}

export function iri(collection: string, id: string | number): string {
  return `/api/${collection}/${id}`;
}

/** A key from a name: letters, digits, hyphen and underscore (spec 5, invalidKey). */
export function keyFrom(name: string): string {
  const k = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return k || 'key';
}

export const KEY_RULE = /^[A-Za-z0-9_-]{1,64}$/;

export const toNum = (v: string | number | null | undefined): number | null => (v === null || v === undefined ? null : Number(v));

/** The rows of an `UPDATE ... RETURNING` (TypeORM answers `[rows, count]` for UPDATE and DELETE, the rows for the rest). */
export function rowsOf<T = Record<string, any>>(result: unknown): T[] { // eslint-disable-line @typescript-eslint/no-explicit-any -- SQL rows
  const r = result as unknown[];
  return (Array.isArray(r) && r.length === 2 && Array.isArray(r[0]) && typeof r[1] === 'number' ? r[0] : r) as T[];
}
