import type { EntityManager } from 'typeorm';
import type { CampaignActionValue, CampaignHaltReasonValue } from '@switchboard/contracts';
import type { UnitOfWorkEmit, UnitOfWorkNotify } from '@switchboard/platform';
import { applyTransition } from '../services/campaign-status.service';

/**
 * One status change of the runner, through the campaigns service's one transition (`applyTransition`, spec 4: only
 * from the statuses `CAMPAIGN_ACTION_STATUSES` allows, with the history row, `campaigns.campaign.status_changed` and
 * the live update) in the caller's transaction. False when the campaign is no longer in such a status (a user paused
 * or aborted it meanwhile): the runner then does nothing.
 */
export async function transition(
  m: EntityManager,
  emit: UnitOfWorkEmit,
  notify: UnitOfWorkNotify | null,
  campaign: { id: string; accountId: string },
  action: CampaignActionValue,
  at: Date,
  o: { haltReasonId?: CampaignHaltReasonValue | null; reason?: string | null } = {},
): Promise<boolean> {
  return (await applyTransition(m, emit, notify, campaign, action, at, { haltReasonId: o.haltReasonId ?? null, reason: o.reason ?? null })) !== null;
}
