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
  const order: Record<string, 'ASC' | 'DESC'> = {};
  const rawOrder: Raw = {};
  if (query.order && typeof query.order === 'object') Object.assign(rawOrder, query.order as Raw);
  for (const [k, v] of Object.entries(query)) {
    const m = /^order\[(.+)\]$/.exec(k);
    if (m) rawOrder[m[1]] = v;
  }
  for (const [field, dir] of Object.entries(rawOrder)) {
    if (!opts.sortable.includes(field)) throw AppError.validation([{ propertyPath: `order[${field}]`, message: `cannot sort by ${field}` }]);
    const d = String(dir).toUpperCase();
    if (d !== 'ASC' && d !== 'DESC') throw AppError.validation([{ propertyPath: `order[${field}]`, message: 'must be asc or desc' }]);
    order[field] = d;
  }
  const finalOrder = Object.keys(order).length ? order : (opts.defaultOrder ?? { id: 'DESC' });
  return { page, itemsPerPage, skip: (page - 1) * itemsPerPage, take: itemsPerPage, order: finalOrder };
}

function intParam(v: unknown, name: string, def: number, min: number, max: number): number {
  if (v === undefined || v === '') return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw AppError.validation([{ propertyPath: name, message: `must be an integer from ${min} to ${max}` }]);
  }
  return n;
}
