import { useCallback, useMemo } from 'react';
import { fetchProfile } from '../../../providers/auth-provider';
import { apiFetch } from '../../../providers/http';
import { useProfile } from '../../../ui/useProfile';

/** Reads PINNED_CAMPAIGN (spec 3 preference keys): a campaign id or a list of them. */
export function pinnedIds(preferences: string | undefined): number[] {
  try {
    const v = (JSON.parse(preferences || '{}') as { PINNED_CAMPAIGN?: unknown }).PINNED_CAMPAIGN;
    if (typeof v === 'number') return [v];
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
  } catch (_e) {
    return [];
  }
}

/**
 * Pinned campaigns (spec 2 "pinned items first"), kept in the PINNED_CAMPAIGN preference as a list of ids. The whole
 * preference object goes back, as the server replaces it; with nothing pinned the key is left out (empty values are
 * refused).
 */
export function usePinned(): { pinned: number[]; toggle: (id: number) => Promise<void> } {
  const { profile, refetch } = useProfile();
  const pinned = useMemo(() => pinnedIds(profile?.preferences), [profile?.preferences]);
  const toggle = useCallback(
    async (id: number) => {
      let prefs: Record<string, unknown> = {};
      try {
        prefs = JSON.parse(profile?.preferences || '{}') as Record<string, unknown>;
      } catch (_e) {
        prefs = {};
      }
      const next = pinned.includes(id) ? pinned.filter((x) => x !== id) : [id, ...pinned];
      if (next.length) prefs.PINNED_CAMPAIGN = next;
      else delete prefs.PINNED_CAMPAIGN;
      await apiFetch('/users/connected_update', { method: 'PUT', body: { preferences: JSON.stringify(prefs) } });
      await fetchProfile(true);
      await refetch();
    },
    [pinned, profile?.preferences, refetch],
  );
  return { pinned, toggle };
}
