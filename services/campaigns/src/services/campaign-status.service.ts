import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  CAMPAIGN_ACTION_STATUSES,
  CAMPAIGN_STATUS_NAMES,
  CampaignAction,
  CampaignStatus,
  CampaignStatusChangedV1,
  campaignActionAllowed,
  ErrorCode,
  type CampaignActionValue,
  type CampaignHaltReasonValue,
  type CampaignStatusValue,
} from '@switchboard/contracts';
import { AppError, RequestContext, type UnitOfWorkEmit, type UnitOfWorkNotify } from '@switchboard/platform';
import { Clock } from '../clock';
import { CampaignsUnitOfWork } from './campaigns-events.service';

const S = CampaignStatus;

/** Where each action may lead (spec 4 flow; docs/decisions/0031). The first is the default. */
export const ACTION_TARGETS: Readonly<Record<CampaignActionValue, readonly CampaignStatusValue[]>> = Object.freeze({
  // start: scheduled when a future start is set, suspended when the spam review holds it, else started
  start: [S.Started, S.Scheduled, S.Suspended],
  approve: [S.Started, S.Scheduled],
  reject: [S.Rejected],
  suspend: [S.Suspended],
  pause: [S.Paused],
  play: [S.Started],
  abort: [S.Aborted],
  fire: [S.Started],
  process: [S.Processing],
  ready: [S.Ready],
  send: [S.Sending],
  halt: [S.Halt],
  finish: [S.Finished],
  // not status changes: checked with assertAllowed
  edit: [],
  delete: [],
  duplicate: [],
  analytics: [],
  ratio: [],
});

export interface TransitionOptions {
  /** The status to go to when the action has more than one (start, approve); default: the action's first. */
  to?: CampaignStatusValue;
  /** Why: a reject's reason (kept as declinedReason), a halt's explanation. */
  reason?: string | null;
  /** The halt reason id (spec 4) when the action is halt. */
  haltReasonId?: CampaignHaltReasonValue | null;
}

export interface TransitionResult {
  campaignId: string;
  accountId: string;
  from: CampaignStatusValue;
  to: CampaignStatusValue;
  changedAt: string;
}

export function notAllowed(action: string, status: CampaignStatusValue): AppError {
  return new AppError(409, ErrorCode.CampaignActionNotAllowed, `a campaign that is ${CAMPAIGN_STATUS_NAMES[status]} (${status}) cannot ${action}`);
}

/**
 * The one status change (spec 4), in the caller's transaction: a conditional UPDATE that moves the campaign only from
 * a status `CAMPAIGN_ACTION_STATUSES[action]` allows (under the row lock), the status_history row, the
 * `campaigns.campaign.status_changed` event, and the live update on `rt.<account>.campaigns` after commit. Null when
 * the campaign is not in such a status (or not in the account): nothing changed. The console's actions
 * (CampaignStatusService), the spam review and the runner's steps (run/status.ts) all come here.
 */
export async function applyTransition(
  m: Pick<EntityManager, 'query'>,
  emit: UnitOfWorkEmit,
  notify: UnitOfWorkNotify | null,
  campaign: { id: string; accountId: string },
  action: CampaignActionValue,
  at: Date,
  opts: TransitionOptions = {},
): Promise<TransitionResult | null> {
  const targets = ACTION_TARGETS[action];
  if (!targets || targets.length === 0) throw new Error(`CampaignStatusService: ${action} is not a status change`);
  const to = opts.to ?? targets[0];
  if (!targets.includes(to)) throw new Error(`CampaignStatusService: ${action} cannot lead to ${to}`);
  const haltReasonId = to === S.Halt ? (opts.haltReasonId ?? null) : null;
  const result = (await m.query(
    `WITH old AS (SELECT id, status FROM campaigns.campaign WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL AND status = ANY($7::smallint[]) FOR UPDATE)
     UPDATE campaigns.campaign c SET status = $3::smallint, status_changed_at = $4::timestamptz, updated_at = $4::timestamptz,
         halt_reason_id = CASE WHEN $3::smallint = 10 THEN $5::smallint WHEN $3::smallint IN (3, 9) THEN c.halt_reason_id ELSE NULL END,
         declined_reason = CASE WHEN $3::smallint = 11 THEN $6::text WHEN $3::smallint IN (0, 1) AND old.status = 9 THEN NULL ELSE c.declined_reason END,
         started_at = CASE WHEN $3::smallint IN (1, 2, 5, 6) THEN coalesce(c.started_at, $4::timestamptz) ELSE c.started_at END,
         finished_at = CASE WHEN $3::smallint IN (4, 7) THEN $4::timestamptz ELSE c.finished_at END
       FROM old WHERE c.id = old.id
     RETURNING old.status AS from_status`,
    [campaign.id, campaign.accountId, to, at, haltReasonId, opts.reason ?? null, CAMPAIGN_ACTION_STATUSES[action]],
  )) as unknown;
  const rows = (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) ? result[0] : result) as Array<{ from_status: number }>;
  if (!rows.length) return null;
  const from = rows[0].from_status as CampaignStatusValue;
  const actor = RequestContext.principal()?.userId ?? null;
  await m.query(
    `INSERT INTO campaigns.status_history (account_id, campaign_id, from_status, to_status, action, reason, halt_reason_id, actor_user_id, changed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [campaign.accountId, campaign.id, from, to, action, opts.reason ?? null, haltReasonId, actor && /^\d+$/.test(actor) ? actor : null, at],
  );
  const changedAt = at.toISOString();
  emit(CampaignStatusChangedV1, { campaignId: campaign.id, accountId: campaign.accountId, from, to, action, reason: opts.reason ?? null, haltReasonId, changedAt }, campaign.accountId);
  // `id`/`status` for the console's lists, `campaignId`/`to` as the runner first published them
  notify?.({
    accountId: campaign.accountId,
    type: 'campaign.status_changed',
    data: { id: Number(campaign.id), campaignId: Number(campaign.id), from, to, status: to, action, haltReasonId, reason: opts.reason ?? null, changedAt },
  });
  return { campaignId: campaign.id, accountId: campaign.accountId, from, to, changedAt };
}

/**
 * The one place a campaign's status changes (spec 4): checks the action against the status under a row lock, writes
 * the new status, a status_history row and the `campaigns.campaign.status_changed` event in one transaction, and
 * sends the live update after commit. The console's actions, the spam review and the runner's steps all come here.
 */
@Injectable()
export class CampaignStatusService {
  constructor(
    private readonly uow: CampaignsUnitOfWork,
    private readonly clock: Clock,
  ) {}

  /** The action in a transaction of its own. 404 for a campaign not in the account, 409 when the status forbids it. */
  transition(accountId: string, campaignId: string, action: CampaignActionValue, opts: TransitionOptions = {}): Promise<TransitionResult> {
    return this.uow.run((m, emit, notify) => this.transitionIn(m, emit, notify, accountId, campaignId, action, opts));
  }

  /** The same inside a caller's unit of work (so the caller's own writes commit with the status change). */
  async transitionIn(
    m: EntityManager,
    emit: UnitOfWorkEmit,
    notify: UnitOfWorkNotify,
    accountId: string,
    campaignId: string,
    action: CampaignActionValue,
    opts: TransitionOptions = {},
  ): Promise<TransitionResult> {
    if (!/^\d{1,18}$/.test(campaignId)) throw AppError.notFound('campaign');
    const done = await applyTransition(m, emit, notify, { id: campaignId, accountId }, action, this.clock.now(), opts);
    if (done) return done;
    const [row] = await m.query<Array<{ status: number }>>(`SELECT status FROM campaigns.campaign WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`, [campaignId, accountId]);
    if (!row) throw AppError.notFound('campaign');
    throw notAllowed(action, row.status as CampaignStatusValue);
  }

  /** 409 unless the campaign's current status allows the action (edit, delete, duplicate, analytics, ratio). */
  assertAllowed(action: CampaignActionValue, status: CampaignStatusValue): void {
    if (!campaignActionAllowed(action, status)) throw notAllowed(action, status);
  }

  /** Scheduled campaigns whose time came, started (for the runner's scheduler): the ids moved. */
  async fireDue(limit = 100): Promise<Array<{ accountId: string; campaignId: string }>> {
    const due = await this.uow.run((m) =>
      m.query<Array<{ account_id: string; id: string }>>(
        `SELECT account_id::text, id::text FROM campaigns.campaign WHERE status = 0 AND deleted_at IS NULL AND scheduled_at <= $1 ORDER BY scheduled_at LIMIT $2`,
        [this.clock.now(), limit],
      ),
    );
    const moved: Array<{ accountId: string; campaignId: string }> = [];
    for (const d of due) {
      try {
        await this.transition(d.account_id, d.id, CampaignAction.Fire);
        moved.push({ accountId: d.account_id, campaignId: d.id });
      } catch (e) {
        // paused, edited or deleted meanwhile: nothing to fire
        if (!(e instanceof AppError)) throw e;
      }
    }
    return moved;
  }
}
