import type { z } from 'zod';
import { AppError } from '@switchboard/platform';

/** Parses a body or query with a zod schema; a failure is 400 `0x1` with one violation per issue, nothing changed. */
export function parse<T extends z.ZodTypeAny>(schema: T, value: unknown): z.infer<T> {
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data as z.infer<T>;
  throw AppError.validation(r.error.issues.map((i) => ({ propertyPath: i.path.join('.') || '(body)', message: i.message, code: i.code })));
}
