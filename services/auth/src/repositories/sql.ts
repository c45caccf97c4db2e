/** TypeORM answers `[rows, affectedCount]` for UPDATE and DELETE ... RETURNING, and the rows alone for the rest. */
export function updatedRows<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return (Array.isArray(result) ? result : []) as T[];
}
