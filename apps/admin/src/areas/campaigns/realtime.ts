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
