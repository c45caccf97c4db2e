import type { EntityManager } from 'typeorm';
import type { CampaignActionValue, CampaignHaltReasonValue } from '@switchboard/contracts';
import type { UnitOfWorkEmit, UnitOfWorkNotify } from '@switchboard/platform';
import { applyTransition } from '../services/campaign-status.service';

/**
 * One status change of the runner, allowed only from the statuses spec 4 allows it in (`CAMPAIGN_ACTION_STATUSES`),
 * through the service's one transition (services/campaign-status.service.ts: the conditional UPDATE, the status
 * history row and `campaigns.campaign.status_changed` in the caller's transaction, a live update after it commits).
 * False when the campaign is no longer in such a status (a user paused or aborted it meanwhile): the runner then does
 * nothing.
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
  return (await applyTransition(m, emit, notify, campaign, action, at, o)) !== null;
}
