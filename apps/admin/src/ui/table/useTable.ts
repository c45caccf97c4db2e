import { useCallback, useEffect, useMemo, useState } from 'react';
import { DEFAULT_PAGE_SIZE } from '../../constants';
import { fetchProfile } from '../../providers/auth-provider';
import { apiFetch } from '../../providers/http';
import { useApi } from '../useApi';
import { useProfile } from '../useProfile';
import type { Column, SortState } from './DataTable';

/** The `{items, total}` answer of a list route. */
export interface ListResult<T> {
  items: T[];
  total: number;
}

function storedPageSizes(preferences: string | undefined): Record<string, number> {
  try {
    const prefs = JSON.parse(preferences || '{}') as { PAGE_SIZE?: unknown };
    const v = prefs.PAGE_SIZE;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, number>) : {};
  } catch (_e) {
    return {};
  }
}

/**
 * Spec 9: the page size is saved per table in the PAGE_SIZE preference (`{ <tableKey>: size }`), `fallback` (25)
 * until one is saved. The whole preference object is sent back, as the server replaces it.
 */
export function usePageSize(tableKey: string, fallback: number = DEFAULT_PAGE_SIZE): [number, (size: number) => void] {
  const { profile, refetch } = useProfile();
  const saved = storedPageSizes(profile?.preferences)[tableKey];
  const [size, setSize] = useState<number>(typeof saved === 'number' && saved > 0 ? saved : fallback);
  useEffect(() => {
    if (typeof saved === 'number' && saved > 0) setSize(saved);
  }, [saved]);
  const change = useCallback(
    (next: number) => {
      setSize(next);
      let prefs: Record<string, unknown> = {};
      try {
        prefs = JSON.parse(profile?.preferences || '{}') as Record<string, unknown>;
      } catch (_e) {
        prefs = {};
      }
      const sizes = { ...storedPageSizes(profile?.preferences), [tableKey]: next };
      apiFetch('/users/connected_update', { method: 'PUT', body: { preferences: JSON.stringify({ ...prefs, PAGE_SIZE: sizes }) } })
        .then(() => fetchProfile(true))
        .then(() => refetch())
        .catch(() => undefined); // the size still applies to this visit
    },
    [profile?.preferences, refetch, tableKey],
  );
  return [size, change];
}

/** Client-side paging and sorting of an already loaded list (spec 2: "client-side and server-driven" tables). */
export function useClientTable<T>(rows: T[], columns: Column<T>[], tableKey: string, initialSort: SortState) {
  const [perPage, setPerPage] = usePageSize(tableKey);
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<SortState>(initialSort);

  const sorted = useMemo(() => {
    const column = columns.find((c) => c.key === sort.field);
    if (!column?.sortValue) return rows;
    const value = column.sortValue;
    const dir = sort.order === 'asc' ? 1 : -1;
    return [...rows].sort((a, b) => {
      const x = value(a);
      const y = value(b);
      return (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))) * dir;
    });
  }, [rows, columns, sort]);

  const pageCount = Math.max(1, Math.ceil(sorted.length / perPage));
  useEffect(() => {
    if (page > pageCount) setPage(pageCount);
  }, [page, pageCount]);

  const pageRows = useMemo(() => sorted.slice((page - 1) * perPage, page * perPage), [sorted, page, perPage]);
  const toggleSort = (field: string) => setSort((s) => (s.field === field ? { field, order: s.order === 'asc' ? 'desc' : 'asc' } : { field, order: 'asc' }));

  return {
    pageRows,
    sort,
    toggleSort,
    pagination: {
      page: Math.min(page, pageCount),
      perPage,
      total: sorted.length,
      onPageChange: setPage,
      onPerPageChange: (n: number) => {
        setPerPage(n);
        setPage(1);
      },
    },
  };
}

export interface ServerQuery {
  page: number;
  perPage: number;
  sort: SortState;
  filter: Record<string, string | number | undefined>;
}

/**
 * A server-driven table: the page, size, sort and filters go to `load`, which answers `{items, total}`. Changing a
 * filter goes back to page 1. Sorted by id descending unless told otherwise (spec 9).
 */
export function useServerTable<T>(tableKey: string, load: (q: ServerQuery) => Promise<ListResult<T>>, initialSort: SortState = { field: 'id', order: 'desc' }, initialFilter: Record<string, string | number | undefined> = {}, enabled = true) {
  const [perPage, setPerPage] = usePageSize(tableKey);
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<SortState>(initialSort);
  const [filter, setFilterState] = useState(initialFilter);
  const key = JSON.stringify({ page, perPage, sort, filter });
  const state = useApi(() => load({ page, perPage, sort, filter }), [key], enabled);
  const total = state.data?.total ?? 0;
  const pageCount = Math.max(1, Math.ceil(total / perPage));
  useEffect(() => {
    if (state.data && page > pageCount) setPage(pageCount);
  }, [state.data, page, pageCount]);
  const setFilter = useCallback((patch: Record<string, string | number | undefined>) => {
    setFilterState((f) => ({ ...f, ...patch }));
    setPage(1);
  }, []);
  return {
    ...state,
    rows: state.data?.items ?? [],
    sort,
    filter,
    setFilter,
    toggleSort: (field: string) => setSort((s) => (s.field === field ? { field, order: s.order === 'asc' ? 'desc' : 'asc' } : { field, order: 'desc' })),
    pagination: {
      page,
      perPage,
      total,
      onPageChange: setPage,
      onPerPageChange: (n: number) => {
        setPerPage(n);
        setPage(1);
      },
    },
  };
}
