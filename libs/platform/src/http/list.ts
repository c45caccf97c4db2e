import { AppError } from '../errors/app-error';

/** The list contract of spec section 7: `page`, `itemsPerPage`, `order[field]` -> `{ items, total }`. */
export interface ListResult<T> {
  items: T[];
  total: number;
}

export interface ListQuery {
  page: number;
  itemsPerPage: number;
  skip: number;
  take: number;
  order: Record<string, 'ASC' | 'DESC'>;
}

export interface ListQueryOptions {
  /** Fields a client may sort by; anything else is a 400 (never pasted into SQL). */
  sortable: readonly string[];
  defaultOrder?: Record<string, 'ASC' | 'DESC'>;
  defaultItemsPerPage?: number;
  maxItemsPerPage?: number;
}

type Raw = Record<string, unknown>;

/** Parses `page`, `itemsPerPage`, `order[field]=asc|desc` (Express gives `order` as an object, or the raw bracket keys). */
export function parseListQuery(query: Raw, opts: ListQueryOptions): ListQuery {
  const page = intParam(query.page, 'page', 1, 1, 1_000_000);
  const itemsPerPage = intParam(query.itemsPerPage, 'itemsPerPage', opts.defaultItemsPerPage ?? 25, 1, opts.maxItemsPerPage ?? 2000);
  // A Map, not an object: a field named `__proto__` or `constructor` must be refused like any unknown field.
  const rawOrder = new Map<string, unknown>();
  if (query.order !== undefined) {
    if (!query.order || typeof query.order !== 'object' || Array.isArray(query.order)) {
      throw AppError.validation([{ propertyPath: 'order', message: 'use order[field]=asc|desc' }]);
    }
    for (const [k, v] of Object.entries(query.order as Raw)) rawOrder.set(k, v);
  }
  for (const [k, v] of Object.entries(query)) {
    const m = /^order\[(.*)\]$/.exec(k);
    if (m) rawOrder.set(m[1], v);
  }
  const order: Record<string, 'ASC' | 'DESC'> = {};
  for (const [field, dir] of rawOrder) {
    if (!opts.sortable.includes(field)) {
      throw AppError.validation([{ propertyPath: `order[${field}]`, message: `cannot sort by ${field}` }]);
    }
    const d = typeof dir === 'string' ? dir.trim().toUpperCase() : '';
    if (d !== 'ASC' && d !== 'DESC') throw AppError.validation([{ propertyPath: `order[${field}]`, message: 'must be asc or desc' }]);
    order[field] = d;
  }
  const finalOrder = Object.keys(order).length ? order : { ...(opts.defaultOrder ?? { id: 'DESC' }) };
  return { page, itemsPerPage, skip: (page - 1) * itemsPerPage, take: itemsPerPage, order: finalOrder };
}

function intParam(v: unknown, name: string, def: number, min: number, max: number): number {
  if (v === undefined || v === '') return def;
  // Digits only: Number() would also take "1e3", "0x10", " 5 " and [5].
  const n = typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : typeof v === 'number' ? v : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw AppError.validation([{ propertyPath: name, message: `must be an integer from ${min} to ${max}` }]);
  }
  return n;
}
