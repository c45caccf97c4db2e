import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CampaignStatusesRequestedV1 } from '@switchboard/contracts';
import { counter, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { CampaignsUnitOfWork } from '../services/campaigns-events.service';
import { RUNNER_OPTIONS, type ResolvedRunnerOptions } from './runner.options';
import { returned } from './runner.service';

/** Recipients whose status campaigns asked dispatch for, and what the answers did (docs/decisions/0093). */
export const StatusReconcileMetrics = {
  recipients: () =>
    counter(
      'switchboard_campaigns_status_reconcile_recipients_total',
      'Recipients accepted long ago without a final status: asked (of dispatch), answered (a status came back), recovered (the answer moved the recipient forward: its status events were lost), unknown (dispatch never got the message)',
      ['outcome'],
    ),
  sweepFailures: () => counter('switchboard_campaigns_status_reconcile_sweep_failures_total', 'Sweeps of recipients without a final status that failed (database or broker unavailable); the next sweep retries'),
};

/**
 * Asks dispatch for the statuses campaigns lost (docs/decisions/0093): a status event deleted by a broker's retention,
 * or skipped by an offset reset of `campaigns.message-statuses`, before campaigns read it leaves its recipient without
 * a final status, and the campaign never finishes or counts short.
 *
 * Every `statuses.intervalMs`, in processes with the schedulers role: the recipients streams accepted whose status is
 * none or `sent`, `statuses.afterMs` after their request or their last question, oldest first, `batch` at a time and
 * at most `requestsPerSweep` batches a sweep, are marked asked (`status_asked_at`) and asked about in
 * `campaigns.statuses.reconcile_requested`, one request per campaign of an account, in the same transaction (the
 * outbox). Replicas take disjoint rows (SKIP LOCKED). Dispatch answers `dispatch.statuses.reconciled`, which the
 * status group applies exactly like status events (`RunnerConsumers.onStatusesAnswer`): only forward, so an answer
 * repeated, or racing a late status event, counts nothing twice. A recipient still not final is asked again after
 * `afterMs`. A sweep that fails (database down) is logged and counted; the next one takes the same rows.
 */
@Injectable()
export class StatusReconciler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('CampaignStatusReconcile');
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  /** Totals of this process, for tests and benchmarks. */
  readonly stats = { sweeps: 0, failedSweeps: 0, asked: 0, requests: 0 };

  constructor(
    @Inject(RUNNER_OPTIONS) private readonly o: ResolvedRunnerOptions,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly uow: CampaignsUnitOfWork,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.roles.schedulers || this.o.statuses.intervalMs === 0) return;
    this.timer = setInterval(() => {
      this.running ??= this.sweepOnce()
        .catch((e: unknown) => {
          this.stats.failedSweeps++;
          StatusReconcileMetrics.sweepFailures().inc();
          this.log.warn(`sweep of recipients without a final status failed, retried in ${this.o.statuses.intervalMs} ms: ${(e as Error).message}`);
        })
        .finally(() => (this.running = undefined));
    }, this.o.statuses.intervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One sweep: asks dispatch about the due recipients; returns how many were asked about. */
  async sweepOnce(): Promise<number> {
    const { afterMs, batch, requestsPerSweep } = this.o.statuses;
    let asked = 0;
    for (let n = 0; n < requestsPerSweep; n++) {
      const now = this.clock.now();
      const taken = await this.uow.run(async (m, emit) => {
        const rows = returned<{ campaign_id: string; account_id: string; uuid: string }>(
          await m.query(
            `WITH due AS (
               SELECT campaign_id, ordinal FROM campaigns.recipient
                WHERE state = 3 AND (status IS NULL OR status = 'sent') AND coalesce(status_asked_at, requested_at) <= $1
                ORDER BY coalesce(status_asked_at, requested_at) LIMIT $2 FOR UPDATE SKIP LOCKED)
             UPDATE campaigns.recipient r SET status_asked_at = $3 FROM due WHERE r.campaign_id = due.campaign_id AND r.ordinal = due.ordinal
             RETURNING r.campaign_id::text, r.account_id::text, r.message_uuid::text AS uuid`,
            [new Date(now.getTime() - afterMs), batch, now],
          ),
        );
        // one request per campaign of an account: the answer is applied to that account's campaign only
        const byCampaign = new Map<string, { accountId: string; campaignId: string; uuids: string[] }>();
        for (const r of rows) {
          const had = byCampaign.get(r.campaign_id);
          if (had) had.uuids.push(r.uuid);
          else byCampaign.set(r.campaign_id, { accountId: r.account_id, campaignId: r.campaign_id, uuids: [r.uuid] });
        }
        for (const q of byCampaign.values()) emit(CampaignStatusesRequestedV1, { requestId: randomUUID(), accountId: q.accountId, campaignId: q.campaignId, messageUuids: q.uuids }, q.accountId);
        return { recipients: rows.length, requests: byCampaign.size };
      });
      if (taken.recipients) {
        asked += taken.recipients;
        this.stats.requests += taken.requests;
        this.log.log(`asked dispatch for the statuses of ${taken.recipients} recipients without a final status ${Math.round(afterMs / 1000)} s after their request (${taken.requests} requests)`);
      }
      if (taken.recipients < batch) break;
    }
    this.stats.sweeps++;
    this.stats.asked += asked;
    if (asked) StatusReconcileMetrics.recipients().inc({ outcome: 'asked' }, asked);
    return asked;
  }
}
