import { CAMPAIGN_DEFAULTS } from '@switchboard/contracts/src/campaigns';
import { ctrLevel } from '../rules';
import type { Campaign } from '../types';

export const CTR_COLORS = { bad: '#b42318', mid: '#b54708', good: '#067647' } as const;

/**
 * A campaign's CTR (clicked over sent, in percent) and its level by the campaign's own `ctr_indicators` [bad, good];
 * level `none` before a message went out (nothing to judge yet: the list and the campaign page show a dash).
 */
export function campaignCtr(c: Pick<Campaign, 'stats' | 'campaignSettings'>): { ctr: number; level: 'bad' | 'mid' | 'good' | 'none' } {
  const st = c.stats;
  if (!st?.sent) return { ctr: 0, level: 'none' };
  const ctr = ((st.clicked ?? 0) / st.sent) * 100;
  const ind = c.campaignSettings?.ctr_indicators;
  const indicators: [number, number] = Array.isArray(ind) && ind.length === 2 ? [Number(ind[0]), Number(ind[1])] : [CAMPAIGN_DEFAULTS.ctrIndicators.bad, CAMPAIGN_DEFAULTS.ctrIndicators.good];
  return { ctr, level: ctrLevel(ctr, indicators) };
}
