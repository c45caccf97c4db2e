import type { DataSource, EntityManager } from 'typeorm';

export type Queryable = Pick<DataSource | EntityManager, 'query'>;

/**
 * The rows of a statement. TypeORM's postgres driver answers UPDATE and DELETE with `[rows, rowCount]` and every
 * other statement with the rows; this evens that out (a row is an object, never an array).
 */
export async function rows<T>(db: Queryable, sql: string, params: unknown[] = []): Promise<T[]> {
  const r: unknown = await db.query(sql, params);
  if (Array.isArray(r) && r.length === 2 && Array.isArray(r[0]) && typeof r[1] === 'number') return r[0] as T[];
  return (r ?? []) as T[];
}

export async function one<T>(db: Queryable, sql: string, params: unknown[] = []): Promise<T | null> {
  return (await rows<T>(db, sql, params))[0] ?? null;
}

/** `%text%` for ILIKE, with the pattern characters of `text` taken literally. */
export const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, '\\$&')}%`;
