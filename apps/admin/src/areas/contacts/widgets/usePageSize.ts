import { useCallback, useEffect, useState } from 'react';
import { fetchProfile } from '../../../providers/auth-provider';
import { apiFetch } from '../../../providers/http';
import { useProfile } from '../../../ui/useProfile';
import { DEFAULT_PAGE_SIZE } from '../constants';

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
 * Spec 9: the page size is saved per table in the PAGE_SIZE preference (`{ <tableKey>: size }`). The whole
 * preference object goes back, as the server replaces it.
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
