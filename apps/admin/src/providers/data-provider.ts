import type { DataProvider, Identifier, RaRecord } from 'react-admin';
import { DEFAULT_PAGE_SIZE } from '../constants';
import { apiFetch } from './http';

interface ListAnswer<T> {
  items: T[];
  total: number;
}

/** Filters become query parameters; arrays repeat as `key[]=a&key[]=b`, objects become `key[sub]=v`. */
function appendFilter(query: URLSearchParams, key: string, value: unknown): void {
  if (value === undefined || value === null || value === '') return;
  if (Array.isArray(value)) {
    for (const v of value) query.append(`${key}[]`, String(v));
  } else if (typeof value === 'object') {
    for (const [sub, v] of Object.entries(value as Record<string, unknown>)) appendFilter(query, `${key}[${sub}]`, v);
  } else {
    query.append(key, String(value));
  }
}

export function listQuery(params: {
  pagination?: { page: number; perPage: number } | false;
  sort?: { field: string; order: string };
  filter?: Record<string, unknown>;
}): string {
  const query = new URLSearchParams();
  const pagination = params.pagination === false ? null : (params.pagination ?? { page: 1, perPage: DEFAULT_PAGE_SIZE });
  if (pagination) {
    query.set('page', String(pagination.page));
    query.set('itemsPerPage', String(pagination.perPage));
  }
  const field = params.sort?.field || 'id';
  const order = (params.sort?.order || 'DESC').toLowerCase();
  query.set(`order[${field}]`, order === 'asc' ? 'asc' : 'desc');
  for (const [key, value] of Object.entries(params.filter ?? {})) appendFilter(query, key, value);
  return query.toString();
}

const path = (resource: string, id?: Identifier) =>
  id === undefined ? `/${resource}` : `/${resource}/${encodeURIComponent(String(id))}`;

/** 401s reach react-admin's checkError through the rejection, so the dataProvider does not raise the shell's own event. */
const call = <T>(p: string, init: Parameters<typeof apiFetch>[1] = {}) => apiFetch<T>(p, { notifyUnauthorized: false, ...init });

/**
 * react-admin's dataProvider over the /api list contract:
 * `GET /api/<resource>?page=1&itemsPerPage=25&order[id]=desc&<filters>` answers `{ items, total }`;
 * getOne GET /api/<res>/<id>; create POST; update PUT; delete DELETE. Errors reject with ApiError.
 */
export const dataProvider: DataProvider = {
  async getList(resource, params) {
    const answer = await call<ListAnswer<RaRecord>>(`${path(resource)}?${listQuery(params)}`, { signal: params.signal });
    return { data: answer.items, total: answer.total };
  },

  async getOne(resource, params) {
    const data = await call<RaRecord>(path(resource, params.id), { signal: params.signal });
    return { data };
  },

  async getMany(resource, params) {
    // the list contract has no "ids" filter, so each record is fetched on its own
    const data = await Promise.all(params.ids.map((id) => call<RaRecord>(path(resource, id), { signal: params.signal })));
    return { data };
  },

  async getManyReference(resource, params) {
    const filter = { ...params.filter, [params.target]: params.id };
    const answer = await call<ListAnswer<RaRecord>>(`${path(resource)}?${listQuery({ ...params, filter })}`, {
      signal: params.signal,
    });
    return { data: answer.items, total: answer.total };
  },

  async create(resource, params) {
    const data = await call<RaRecord>(path(resource), { method: 'POST', body: params.data });
    return { data: { ...params.data, ...data } };
  },

  async update(resource, params) {
    const data = await call<RaRecord>(path(resource, params.id), { method: 'PUT', body: params.data });
    return { data: { ...params.data, ...data, id: params.id } };
  },

  async updateMany(resource, params) {
    await Promise.all(params.ids.map((id) => call(path(resource, id), { method: 'PUT', body: params.data })));
    return { data: params.ids };
  },

  async delete(resource, params) {
    await call(path(resource, params.id), { method: 'DELETE' });
    return { data: params.previousData ?? { id: params.id } };
  },

  async deleteMany(resource, params) {
    await Promise.all(params.ids.map((id) => call(path(resource, id), { method: 'DELETE' })));
    return { data: params.ids };
  },
} as DataProvider;
