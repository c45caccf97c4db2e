import { useCallback, useEffect, useRef } from 'react';
import { useProfile } from '../../ui/useProfile';
import { useRealtime } from '../contacts/realtime';
import type { RealtimeFrame } from '../contacts/types';
import { campaignPatch, type CampaignPatch } from './live';

export { applyPatch, campaignPatch, type CampaignPatch } from './live';

/** Follows the `campaigns` topic of /realtime; `onPatch` gets each valid campaign update of this account. */
export function useCampaignsRealtime(onPatch: (p: CampaignPatch, frame: RealtimeFrame) => void, onResync?: () => void, enabled = true): boolean {
  const { profile } = useProfile();
  const accountId = profile?.customer?.id;
  return useRealtime(
    ['campaigns'],
    {
      onFrame: (f) => {
        const p = campaignPatch(f, accountId);
        if (p) onPatch(p, f);
      },
      onResync,
    },
    enabled,
  );
}

/** At most one reload of a campaign per this many ms while its frames keep coming. */
const REFETCH_MS = 300;

/**
 * Loads a campaign again after `campaign.stats` frames, at most once per 300 ms per campaign (the last frame of a
 * burst always leads to a load).
 */
export function useCampaignRefetch(load: (id: number) => Promise<void>): (id: number) => void {
  const timers = useRef(new Map<number, number>());
  const latest = useRef(load);
  latest.current = load;
  useEffect(() => () => {
    for (const t of timers.current.values()) window.clearTimeout(t);
    timers.current.clear();
  }, []);
  return useCallback((id: number) => {
    if (timers.current.has(id)) return;
    timers.current.set(
      id,
      window.setTimeout(() => {
        timers.current.delete(id);
        void latest.current(id).catch(() => undefined);
      }, REFETCH_MS),
    );
  }, []);
}
