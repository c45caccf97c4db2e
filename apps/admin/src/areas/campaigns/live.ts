import type { RealtimeFrame } from '../contacts/types';
import type { Campaign, CampaignStats } from './types';

const STAT_KEYS = ['total', 'created', 'sent', 'delivered', 'sentFailed', 'undelivered', 'dlrFailed', 'optedOut', 'clicked', 'register', 'ftd', 'clickedPercentage', 'optedOutPercentage', 'ctr'] as const;

export interface CampaignPatch {
  id: number;
  status?: number;
  haltReasonId?: Campaign['haltReasonId'];
  declinedReason?: string | null;
  startedAt?: string | null;
  actions?: Campaign['actions'];
  stats?: Partial<CampaignStats>;
  cost?: string;
  /** The frame only says the campaign's figures changed (`campaign.stats`): load it again. */
  refresh?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const asId = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : null);

/**
 * Spec 4 "Live connections": a campaign message is checked against its schema (a campaign id, numbers where numbers
 * belong) and ignored when invalid, and accepted only for the current account. The runner sends
 * `campaign.status_changed` (`campaignId`, `from`, `to`, `haltReasonId`) and `campaign.stats` (`campaignId` and the
 * deltas of one step: the figures are loaded again); a frame may also carry the campaign itself (`data.campaign` or
 * `data`, CampaignDto fields).
 */
export function campaignPatch(frame: RealtimeFrame, accountId: string | number | undefined): CampaignPatch | null {
  if (frame.topic !== 'campaigns' || !isObject(frame.data)) return null;
  if (accountId !== undefined && String(frame.accountId) !== String(accountId)) return null;
  const data = frame.data;
  const src = isObject(data.campaign) ? data.campaign : data;
  const id = asId(src.id ?? src.campaignId ?? data.campaignId);
  if (id === null) return null;
  const patch: CampaignPatch = { id };
  if (frame.type === 'campaign.stats') return { id, refresh: true };
  const status = frame.type === 'campaign.status_changed' ? src.to : (src.status ?? src.to);
  if (status !== undefined) {
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 0 || status > 11) return null;
    patch.status = status;
  }
  if (src.haltReasonId !== undefined) {
    if (src.haltReasonId !== null && typeof src.haltReasonId !== 'number') return null;
    patch.haltReasonId = src.haltReasonId as Campaign['haltReasonId'];
  }
  for (const k of ['declinedReason', 'startedAt'] as const) {
    const v = src[k];
    if (v === undefined) continue;
    if (v !== null && typeof v !== 'string') return null;
    patch[k] = v;
  }
  if (isObject(src.actions)) patch.actions = src.actions as Campaign['actions'];
  const statsSrc = isObject(src.stats) ? src.stats : isObject(src.statistics) ? src.statistics : null;
  if (statsSrc) {
    const stats: Record<string, unknown> = {};
    for (const k of STAT_KEYS) {
      const v = statsSrc[k];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isFinite(v)) return null;
      stats[k] = v;
    }
    if (statsSrc.cost !== undefined) {
      if (typeof statsSrc.cost !== 'string' && typeof statsSrc.cost !== 'number') return null;
      stats.cost = String(statsSrc.cost);
    }
    patch.stats = stats as Partial<CampaignStats>;
  }
  if (typeof src.cost === 'string' || typeof src.cost === 'number') patch.cost = String(src.cost);
  return patch;
}

/** Applies a patch; a counter never moves backwards (a late frame after a fresher load). */
export function applyPatch<T extends Campaign>(c: T, p: CampaignPatch): T {
  if (c.id !== p.id) return c;
  const { id: _id, stats, refresh: _refresh, ...rest } = p;
  const out = { ...c, ...rest } as T;
  // the server's action flags belong to the old status: the shared table decides until the campaign is loaded again
  if (p.status !== undefined && p.status !== c.status && !p.actions) delete (out as Partial<Campaign>).actions;
  if (stats) {
    const merged: Record<string, unknown> = { ...c.stats };
    for (const [k, v] of Object.entries(stats)) {
      const cur = merged[k];
      if (typeof v === 'number' && typeof cur === 'number' && v < cur && k !== 'ctr' && !k.endsWith('Percentage')) continue;
      merged[k] = v;
    }
    out.stats = merged as unknown as CampaignStats;
  }
  return out;
}
