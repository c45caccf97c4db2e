import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CampaignStatusesRequestedV1 } from '@switchboard/contracts';
import { counter, gauge, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
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
  /**
   * How far behind the sweeper's clock the oldest group of accepted recipients still waiting for a final status
   * (`campaigns.status_due`, docs/decisions/0209; a campaign's floor in 0207) stood after this process's last sweep; 0
   * when there is none. Healthy: about `afterMs` plus a sweep; one that keeps growing is a recipient dispatch does not
   * know, asked again every `afterMs`, or sweeps that fail. With replicas, read the greatest.
   */
  floorAge: () =>
    gauge(
      'switchboard_campaigns_status_floor_age_seconds',
      "Age of the oldest group of accepted recipients waiting for a final status (now minus its request or question time) at this process's last sweep",
    ),
};

/**
 * Asks dispatch for the statuses campaigns lost (docs/decisions/0093): a status event deleted by a broker's retention,
 * or skipped by an offset reset of `campaigns.message-statuses`, before campaigns read it leaves its recipient without
 * a final status, and the campaign never finishes or counts short.
 *
 * Every `statuses.intervalMs`, in processes with the schedulers role: the recipients streams accepted whose status is
 * none or `sent`, `statuses.afterMs` after their request or their last question, are marked asked (`status_asked_at`)
 * and asked about in `campaigns.statuses.reconcile_requested`, one request per campaign of an account, at most `batch`
 * recipients a request and `batch × requestsPerSweep` a sweep, in the same transaction (the outbox). Dispatch answers
 * `dispatch.statuses.reconciled`, which the status group applies exactly like status events
 * (`RunnerConsumers.onStatusesAnswer`): only forward, so an answer repeated, or racing a late status event, counts
 * nothing twice. A recipient still not final is asked again after `afterMs`. A sweep that fails (database down) is
 * logged and counted; the next one takes the same rows.
 *
 * How it finds them (docs/decisions/0209, which replaced 0207's floor): no index names `status`, `state` or
 * `requested_at`, so neither streams' answer nor the status group's update of a recipient needs a new index entry
 * (both heap-only when the page has room). Streams' answer inserts, in the transaction that accepts them, one
 * `campaigns.status_due` row a request time: the campaign, the ordinals, and when they are due to be asked about (the
 * request time). The sweep takes the rows due (`due_at <= now − afterMs`, oldest first, `SKIP LOCKED`: two replicas
 * never take one row), reads their recipients by key, and asks about those without a final status. A row goes once
 * all its recipients have a final status; one whose recipients were asked about moves to the time of the question
 * (due again `afterMs` later); recipients not asked (the budget, or locked by a status being applied) stay at the
 * row's time for the next sweep. So a recipient accepted by an answer that commits late (a closed batch's, 0188) is
 * asked about like any other: its row commits with it.
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

  /** Groups of accepted recipients (`campaigns.status_due` rows) a page (one transaction) takes; tests set it smaller. */
  scanRows = 50;

  /** One sweep: asks dispatch about the due recipients; returns how many were asked about. */
  async sweepOnce(): Promise<number> {
    const { batch, requestsPerSweep } = this.o.statuses;
    const budget = batch * requestsPerSweep;
    let asked = 0;
    // the groups due, oldest first; a page goes on after the last group it finished (one it left for the budget is
    // read again, one whose recipients were locked waits for the next sweep)
    let after: Cursor = { at: '-infinity', id: '0' };
    for (;;) {
      if (asked >= budget) break;
      const page = await this.page(Math.min(batch, budget - asked), after);
      asked += page.asked;
      if (!page.next) break;
      after = page.next;
    }
    this.stats.sweeps++;
    this.stats.asked += asked;
    if (asked) StatusReconcileMetrics.recipients().inc({ outcome: 'asked' }, asked);
    // the oldest group still waiting (status_due_at_idx: one index probe)
    const [oldest] = returned<{ age: number | null }>(
      await this.uow.run((m) => m.query(`SELECT extract(epoch FROM $1::timestamptz - min(due_at))::float8 AS age FROM campaigns.status_due`, [this.clock.now()])),
    );
    StatusReconcileMetrics.floorAge().set(Math.max(0, oldest?.age ?? 0));
    return asked;
  }

  /**
   * One page in one transaction: up to `scanRows` due groups taken (`SKIP LOCKED`: another sweep has them), their
   * recipients read by key, up to `cap` of those without a final status locked (`SKIP LOCKED`: a status being applied),
   * marked and asked about, one request a campaign. A group whose recipients all have a final status goes; one whose
   * recipients were all asked about moves to now (due again `afterMs` later); one with recipients left (locked, or past
   * the cap) keeps them at its due time, and the asked ones go into a new group due again later.
   */
  private async page(cap: number, after: Cursor): Promise<{ asked: number; next?: Cursor }> {
    const now = this.clock.now();
    const due = new Date(now.getTime() - this.o.statuses.afterMs);
    return this.uow.run(async (m, emit) => {
      const groups = returned<{ id: string; campaign: string; account: string; at: string; ordinals: number[] }>(
        await m.query(
          `SELECT id::text, campaign_id::text AS campaign, account_id::text AS account, due_at::text AS at, ordinals FROM campaigns.status_due
            WHERE due_at <= $1 AND (due_at, id) > ($2::timestamptz, $3::bigint) ORDER BY due_at, id LIMIT $4 FOR UPDATE SKIP LOCKED`,
          [due, after.at, after.id, this.scanRows],
        ),
      );
      if (!groups.length) return { asked: 0 };
      // each group's recipients without a final status, by key
      const open = returned<{ id: string; ordinal: number }>(
        await m.query(
          `SELECT d.id::text, r.ordinal FROM campaigns.status_due d, LATERAL (SELECT r.ordinal FROM campaigns.recipient r
                   WHERE r.campaign_id = d.campaign_id AND r.ordinal = ANY(d.ordinals) AND r.state = 3 AND (r.status IS NULL OR r.status = 'sent')) r
            WHERE d.id = ANY($1::bigint[]) ORDER BY d.id, r.ordinal`,
          [groups.map((g) => g.id)],
        ),
      );
      const pendingOf = new Map<string, number[]>();
      for (const o of open) {
        const list = pendingOf.get(o.id);
        if (list) list.push(o.ordinal);
        else pendingOf.set(o.id, [o.ordinal]);
      }
      // whole groups while they fit in the cap; a group larger than what is left of the cap is split only when it
      // comes first (else it waits for the next page, which starts at it)
      const taken: Array<{ g: (typeof groups)[number]; ask: number[] }> = [];
      let room = cap;
      let next: Cursor | undefined;
      for (const g of groups) {
        const pending = pendingOf.get(g.id) ?? [];
        if (pending.length > room && taken.some((t) => t.ask.length)) break;
        const ask = pending.slice(0, room);
        room -= ask.length;
        taken.push({ g, ask });
        next = ask.length < pending.length ? next ?? after : { at: g.at, id: g.id };
        if (ask.length < pending.length) break;
      }
      if (taken.length === groups.length && groups.length < this.scanRows && next && next.id === groups[groups.length - 1].id) next = undefined;
      // lock, check again and mark what is asked about; a recipient locked meanwhile stays in its group
      const want = taken.flatMap((t) => t.ask.map((o) => [t.g.campaign, o] as const));
      const marked = want.length
        ? returned<{ campaign: string; ordinal: number; uuid: string }>(
            await m.query(
              `WITH t AS (SELECT * FROM unnest($1::bigint[], $2::int[]) AS t(c, o)),
                    due AS (SELECT r.campaign_id, r.ordinal FROM campaigns.recipient r JOIN t ON r.campaign_id = t.c AND r.ordinal = t.o
                             WHERE r.campaign_id = ANY($1::bigint[]) AND r.ordinal = ANY($2::int[]) AND r.state = 3 AND (r.status IS NULL OR r.status = 'sent')
                             ORDER BY r.campaign_id, r.ordinal FOR UPDATE OF r SKIP LOCKED)
               UPDATE campaigns.recipient r SET status_asked_at = $3 FROM due WHERE r.campaign_id = due.campaign_id AND r.ordinal = due.ordinal
               RETURNING r.campaign_id::text AS campaign, r.ordinal, r.message_uuid::text AS uuid`,
              [want.map((w) => w[0]), want.map((w) => w[1]), now],
            ),
          )
        : [];
      const got = new Set(marked.map((r) => `${r.campaign}:${r.ordinal}`));
      // the groups: gone (nothing left), moved to now (all asked), or kept with what is left and the asked in a new one
      const gone: string[] = [];
      const moved: Array<[string, number[]]> = [];
      const kept: Array<[string, number[]]> = [];
      const fresh: Array<[(typeof groups)[number], number[]]> = [];
      for (const { g, ask } of taken) {
        const asked = ask.filter((o) => got.has(`${g.campaign}:${o}`));
        const left = (pendingOf.get(g.id) ?? []).filter((o) => !got.has(`${g.campaign}:${o}`));
        if (!left.length) {
          if (asked.length) moved.push([g.id, asked]);
          else gone.push(g.id);
        } else {
          if (left.length !== g.ordinals.length) kept.push([g.id, left]);
          if (asked.length) fresh.push([g, asked]);
        }
      }
      if (gone.length) await m.query(`DELETE FROM campaigns.status_due WHERE id = ANY($1::bigint[])`, [gone]);
      const set = async (rows: Array<[string, number[]]>, at: Date | null) => {
        if (!rows.length) return;
        await m.query(
          `UPDATE campaigns.status_due d SET due_at = coalesce($3, d.due_at), ordinals = string_to_array(t.o, ',')::int[] FROM unnest($1::bigint[], $2::text[]) t(id, o) WHERE d.id = t.id`,
          [rows.map((r) => r[0]), rows.map((r) => r[1].join(',')), at],
        );
      };
      await set(moved, now);
      await set(kept, null);
      if (fresh.length) {
        await m.query(
          `INSERT INTO campaigns.status_due (campaign_id, account_id, due_at, ordinals) SELECT c, a, $3, string_to_array(o, ',')::int[] FROM unnest($1::bigint[], $2::bigint[], $4::text[]) t(c, a, o)`,
          [fresh.map((f) => f[0].campaign), fresh.map((f) => f[0].account), now, fresh.map((f) => f[1].join(','))],
        );
      }
      // one request a campaign
      const uuids = new Map<string, string[]>();
      for (const r of marked) {
        const list = uuids.get(r.campaign);
        if (list) list.push(r.uuid);
        else uuids.set(r.campaign, [r.uuid]);
      }
      const accountOf = new Map(groups.map((g) => [g.campaign, g.account]));
      for (const [campaignId, messageUuids] of uuids) {
        const account = accountOf.get(campaignId) as string;
        emit(CampaignStatusesRequestedV1, { requestId: randomUUID(), accountId: account, campaignId, messageUuids }, account);
        this.stats.requests++;
        this.log.log(`asked dispatch for the statuses of ${messageUuids.length} recipients of campaign ${campaignId} without a final status ${Math.round(this.o.statuses.afterMs / 1000)} s after their request`);
      }
      // never the same place again without asking anyone (a group whose recipients stay locked waits for the next sweep)
      if (!marked.length && next && next.at === after.at && next.id === after.id) next = undefined;
      return { asked: marked.length, next };
    });
  }
}

/** Where a sweep's next page starts: after this group (by due time, then id). */
interface Cursor {
  at: string;
  id: string;
}
