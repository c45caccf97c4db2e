import type { DataSource, EntityManager } from 'typeorm';

/**
 * The rows of a query. TypeORM answers `[rows, count]` for UPDATE and DELETE ... RETURNING and the rows for the rest;
 * this gives the rows either way.
 */
export async function rows<T>(db: DataSource | EntityManager, text: string, params: unknown[] = []): Promise<T[]> {
  const r = (await db.query(text, params)) as unknown[];
  return (Array.isArray(r) && r.length === 2 && Array.isArray(r[0]) && typeof r[1] === 'number' ? r[0] : r) as T[];
}
