import { useProfile } from '../../ui/useProfile';
import { useRealtime } from '../contacts/realtime';
import type { RealtimeFrame } from '../contacts/types';
import type { Campaign } from './types';

/** The live fields of a campaign a frame may carry (status and statistics). */
const LIVE_KEYS = ['status', 'haltReasonId', 'declinedReason', 'startedAt', 'created', 'sent', 'delivered', 'sentFailed', 'undelivered', 'dlrFailed', 'optedOut', 'clicked', 'total', 'cost'] as const;

export type CampaignPatch = Partial<Pick<Campaign, (typeof LIVE_KEYS)[number]>> & { id: number };

/**
 * Spec 4 "Live connections": a campaign message is checked against its schema (an object with a numeric campaign id,
 * numbers where numbers belong) and ignored when invalid, and accepted only for the current account.
 */
export function campaignPatch(frame: RealtimeFrame, accountId: string | number | undefined): CampaignPatch | null {
  if (frame.topic !== 'campaigns' || !frame.data || typeof frame.data !== 'object') return null;
  if (accountId !== undefined && String(frame.accountId) !== String(accountId)) return null;
  const data = frame.data as Record<string, unknown>;
  const source = (data.campaign && typeof data.campaign === 'object' ? data.campaign : data) as Record<string, unknown>;
  const stats = (source.statistics && typeof source.statistics === 'object' ? source.statistics : source.stats && typeof source.stats === 'object' ? source.stats : {}) as Record<string, unknown>;
  const id = source.id ?? source.campaignId ?? data.campaignId;
  if (typeof id !== 'number' || !Number.isInteger(id)) return null;
  const patch: Record<string, unknown> = { id };
  for (const key of LIVE_KEYS) {
    const v = key in stats ? stats[key] : source[key];
    if (v === undefined) continue;
    if (key === 'declinedReason' || key === 'startedAt') {
      if (v === null || typeof v === 'string') patch[key] = v;
      else return null;
    } else if (key === 'haltReasonId') {
      if (v === null || typeof v === 'number') patch[key] = v;
      else return null;
    } else if (typeof v === 'number' && Number.isFinite(v)) patch[key] = v;
    else if (key === 'cost' && typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) patch[key] = Number(v);
    else return null;
  }
  return patch as CampaignPatch;
}

/** Applies a patch, never moving a counter backwards (a late frame after a fresher load). */
export function applyPatch<T extends Campaign>(c: T, p: CampaignPatch): T {
  if (c.id !== p.id) return c;
  const out: Record<string, unknown> = { ...(c as unknown as Record<string, unknown>) };
  for (const [k, v] of Object.entries(p)) {
    if (k === 'id') continue;
    const cur = (c as unknown as Record<string, unknown>)[k];
    if (typeof v === 'number' && typeof cur === 'number' && k !== 'status' && k !== 'haltReasonId' && v < cur) continue;
    out[k] = v;
  }
  return out as T;
}

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
