import type { EntityManager } from 'typeorm';
import {
  CAMPAIGN_ACTION_STATUSES,
  CampaignStatus,
  CampaignStatusChangedV1,
  type CampaignActionValue,
  type CampaignHaltReasonValue,
  type CampaignStatusValue,
} from '@switchboard/contracts';
import type { UnitOfWorkEmit, UnitOfWorkNotify } from '@switchboard/platform';

/** Where each of the runner's actions leads (spec 4 flow). */
const TARGET: Partial<Record<CampaignActionValue, CampaignStatusValue>> = {
  process: CampaignStatus.Processing,
  ready: CampaignStatus.Ready,
  send: CampaignStatus.Sending,
  halt: CampaignStatus.Halt,
  finish: CampaignStatus.Finished,
  pause: CampaignStatus.Paused,
  play: CampaignStatus.Started,
  abort: CampaignStatus.Aborted,
};

/**
 * One status change of the runner, allowed only from the statuses spec 4 allows it in (`CAMPAIGN_ACTION_STATUSES`):
 * a conditional UPDATE, the status history row and `campaigns.campaign.status_changed` in the caller's transaction,
 * and a live update after it commits. False when the campaign is no longer in such a status (a user paused or aborted
 * it meanwhile): the runner then does nothing.
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
  const to = TARGET[action];
  if (to === undefined) throw new Error(`the runner does not ${action} campaigns`);
  const rows = (await m.query(
    `WITH old AS (SELECT id, status FROM campaigns.campaign WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL AND status = ANY($3::smallint[]) FOR UPDATE)
     UPDATE campaigns.campaign c SET status = $4::smallint, halt_reason_id = $5::smallint, status_changed_at = $6::timestamptz, updated_at = $6::timestamptz,
            finished_at = CASE WHEN $4::smallint IN (4, 7) THEN $6::timestamptz ELSE c.finished_at END
       FROM old WHERE c.id = old.id
     RETURNING old.status AS from_status`,
    [campaign.id, campaign.accountId, CAMPAIGN_ACTION_STATUSES[action], to, to === CampaignStatus.Halt ? (o.haltReasonId ?? null) : null, at],
  )) as unknown;
  const list = (Array.isArray(rows) && rows.length === 2 && Array.isArray(rows[0]) ? rows[0] : rows) as Array<{ from_status: number }>;
  if (!list.length) return false;
  const from = list[0].from_status;
  const haltReasonId = to === CampaignStatus.Halt ? (o.haltReasonId ?? null) : null;
  await m.query(
    `INSERT INTO campaigns.status_history (account_id, campaign_id, from_status, to_status, action, reason, halt_reason_id, changed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [campaign.accountId, campaign.id, from, to, action, o.reason ?? null, haltReasonId, at],
  );
  emit(CampaignStatusChangedV1, { campaignId: campaign.id, accountId: campaign.accountId, from, to, action, reason: o.reason ?? null, haltReasonId, changedAt: at.toISOString() }, campaign.accountId);
  notify?.({ accountId: campaign.accountId, type: 'campaign.status_changed', data: { campaignId: Number(campaign.id), from, to, haltReasonId } });
  return true;
}
