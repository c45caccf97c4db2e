import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CampaignStatus, CampaignStatusesRequestedV1 } from '@switchboard/contracts';
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
   * How far behind the sweeper's clock the oldest campaign's status floor stood after this process's last sweep
   * (docs/decisions/0207); 0 when no campaign has one (new runs start below everything, ended ones leave). Healthy:
   * about `afterMs` plus a sweep; one that keeps growing is held back by a send batch streams never answered or a
   * recipient kept in flight. With replicas, read the greatest.
   */
  floorAge: () =>
    gauge(
      'switchboard_campaigns_status_floor_age_seconds',
      "Age of the oldest campaign's status floor (now minus the request time below which every accepted recipient has a final status) at this process's last sweep",
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
 * How it finds them (docs/decisions/0207): no index names `status`, so the status group's update of a recipient is
 * heap-only. The sweep reads a campaign's accepted recipients (`recipient_accepted_idx`, by when each is due) from the
 * campaign's floor (`campaigns.run.status_floor`) up to `now − afterMs`, `scanRows` a transaction (a page), and asks
 * about those without a final status. The floor then moves to where the reading ended, never past
 *   - a recipient read without a final status and not asked (the sweep's budget, or locked by a writer),
 *   - the oldest request of the campaign still unanswered: a send batch row (open, or closed and kept for a late answer
 *     while a recipient of it is still at state 0 or 2) or a recipient at state 1 or 2. Streams' answer sets state 3
 *     and the request's time in the transaction that takes the batch row (or moves state 2), and both are read in the
 *     page's one statement (one snapshot), so an answer committed after the read is below no floor.
 * What holds the floor back in one page holds it in the later pages of the sweep, whose cursor goes on past it.
 * A replica takes a campaign's run row (`SKIP LOCKED`) for its page: two sweeps never read one campaign at once. A
 * finished or aborted campaign with no request unanswered and no recipient left without a final status gets the floor
 * `infinity` and is not read again.
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

  /** Accepted recipients a page (one transaction) reads from a campaign's floor; tests set it smaller. */
  scanRows = 10_000;

  /** One sweep: asks dispatch about the due recipients; returns how many were asked about. */
  async sweepOnce(): Promise<number> {
    const { afterMs, batch, requestsPerSweep } = this.o.statuses;
    const budget = batch * requestsPerSweep;
    let asked = 0;
    const due = new Date(this.clock.now().getTime() - afterMs);
    // the campaigns whose floor the due time passed, longest waiting first (a finished one with nothing left: `infinity`)
    const campaigns = returned<{ id: string }>(await this.uow.run((m) => m.query(`SELECT campaign_id::text AS id FROM campaigns.run WHERE status_floor <= $1 ORDER BY status_floor, campaign_id`, [due])));
    for (const { id } of campaigns) {
      // pages of this campaign from its floor while rows are left to read or recipients to ask about; what holds the
      // floor back in one page (an unanswered request, a recipient not asked) holds it in the pages after it
      let at: Cursor | undefined;
      for (;;) {
        if (asked >= budget) break;
        const page = await this.page(id, Math.min(batch, budget - asked), at);
        if (!page) break;
        asked += page.asked;
        if (!page.next) break;
        at = page.next;
      }
      if (asked >= budget) break;
    }
    this.stats.sweeps++;
    this.stats.asked += asked;
    if (asked) StatusReconcileMetrics.recipients().inc({ outcome: 'asked' }, asked);
    // the oldest floor still in use (run_status_floor_idx: one index probe)
    const [oldest] = returned<{ age: number | null }>(
      await this.uow.run((m) =>
        m.query(`SELECT extract(epoch FROM $1::timestamptz - min(status_floor))::float8 AS age FROM campaigns.run WHERE status_floor > '-infinity' AND status_floor < 'infinity'`, [
          this.clock.now(),
        ]),
      ),
    );
    StatusReconcileMetrics.floorAge().set(Math.max(0, oldest?.age ?? 0));
    return asked;
  }

  /**
   * One page of a campaign in one transaction: its run row taken, its accepted recipients read from the cursor (the
   * floor on the first page), up to `cap` of those without a final status asked about, the floor moved. Undefined
   * when another sweep has the campaign, its floor is not due, or another sweep moved it since the last page.
   */
  private async page(campaignId: string, cap: number, at?: Cursor): Promise<{ asked: number; next?: Cursor } | undefined> {
    const now = this.clock.now();
    const due = new Date(now.getTime() - this.o.statuses.afterMs);
    const scan = this.scanRows;
    return this.uow.run(async (m, emit) => {
      // times as text, kept in SQL: the floor may be -infinity, and a key has microseconds (node's Date has ms)
      const [run] = returned<{ floor: string; status: number; account: string }>(
        await m.query(
          `SELECT r.status_floor::text AS floor, c.status, c.account_id::text AS account FROM campaigns.run r JOIN campaigns.campaign c ON c.id = r.campaign_id
            WHERE r.campaign_id = $1 AND r.status_floor <= $2 FOR NO KEY UPDATE OF r SKIP LOCKED`,
          [campaignId, due],
        ),
      );
      if (!run || (at && run.floor !== at.floor)) return undefined;
      const from = at?.from ?? run.floor;
      // The page and the campaign's unanswered requests in one statement: one snapshot (see the class comment). The
      // page is the first `scan` accepted recipients from the cursor by key, and the rest of the last key's (a
      // batch's recipients share their request time): when full, everything up to its last key was read. A closed
      // batch (0188) holds the floor only while a recipient of it could still be accepted by its late answer.
      const key = `coalesce(r.status_asked_at, r.requested_at)`;
      const [p] = returned<{ n: number; next: string; ordinals: number[] | null; keys: string[] | null; hold: string | null; requests: boolean }>(
        await m.query(
          `WITH s AS (SELECT r.ordinal, ${key} AS k, (r.status IS NULL OR r.status = 'sent') AS pending FROM campaigns.recipient r
                       WHERE r.campaign_id = $1 AND r.state = 3 AND ${key} >= $2::timestamptz AND ${key} <= $3 ORDER BY r.campaign_id, ${key} LIMIT $4),
                e AS (SELECT count(*)::int AS n, max(k) AS last FROM s),
                t AS (SELECT r.ordinal, ${key} AS k, (r.status IS NULL OR r.status = 'sent') AS pending FROM campaigns.recipient r, e
                       WHERE e.n >= $4 AND r.campaign_id = $1 AND r.state = 3 AND ${key} = e.last AND r.ordinal <> ALL (SELECT ordinal FROM s)),
                a AS (SELECT * FROM s UNION ALL SELECT * FROM t),
                q AS (SELECT (SELECT min(b.requested_at) FROM campaigns.send_batch b
                               WHERE b.campaign_id = $1 AND (b.open OR EXISTS (SELECT 1 FROM campaigns.recipient x WHERE x.campaign_id = $1 AND x.ordinal = ANY(b.ordinals) AND x.state IN (0, 2)))) AS batch,
                             (SELECT min(f.requested_at) FROM campaigns.recipient f WHERE f.campaign_id = $1 AND f.state IN (1, 2)) AS flight)
           SELECT e.n, (CASE WHEN e.n >= $4 THEN e.last + interval '1 microsecond' ELSE $3 END)::text AS next,
                  (SELECT array_agg(a.ordinal ORDER BY a.k, a.ordinal) FROM a WHERE a.pending) AS ordinals,
                  (SELECT array_agg(a.k::text ORDER BY a.k, a.ordinal) FROM a WHERE a.pending) AS keys,
                  least($5::timestamptz, q.batch, q.flight)::text AS hold, (q.batch IS NOT NULL OR q.flight IS NOT NULL) AS requests
             FROM e, q`,
          [campaignId, from, due, scan, at?.hold ?? null],
        ),
      );
      const pending = p.ordinals ?? [];
      const keys = p.keys ?? [];
      // the oldest `cap` of those without a final status, locked (SKIP LOCKED: a status being applied, or another
      // writer), checked again under the lock and marked asked; their key moves to now, above the due time
      const rows = pending.length
        ? returned<{ ordinal: number; uuid: string }>(
            await m.query(
              `WITH due AS (SELECT campaign_id, ordinal FROM campaigns.recipient
                             WHERE campaign_id = $1 AND ordinal = ANY($2::int[]) AND state = 3 AND (status IS NULL OR status = 'sent') AND coalesce(status_asked_at, requested_at) <= $3
                             ORDER BY campaign_id, ordinal FOR UPDATE SKIP LOCKED)
               UPDATE campaigns.recipient r SET status_asked_at = $4 FROM due WHERE r.campaign_id = due.campaign_id AND r.ordinal = due.ordinal
               RETURNING r.ordinal, r.message_uuid::text AS uuid`,
              [campaignId, pending.slice(0, cap), due, now],
            ),
          )
        : [];
      const taken = new Set(rows.map((r) => r.ordinal));
      const left = pending.findIndex((o) => !taken.has(o));
      let end = false;
      if (!at && p.n === 0 && !p.requests && (run.status === CampaignStatus.Finished || run.status === CampaignStatus.Aborted)) {
        // nothing to read up to the due time and no request unanswered: once no recipient of the ended campaign is left
        // without a final status (those asked lately wait above the due time), it is never read again
        const [{ open }] = returned<{ open: boolean }>(
          await m.query(`SELECT EXISTS (SELECT 1 FROM campaigns.recipient WHERE campaign_id = $1 AND state = 3 AND coalesce(status_asked_at, requested_at) > $2 AND (status IS NULL OR status = 'sent')) AS open`, [campaignId, due]),
        );
        end = !open;
      }
      // The floor goes past what was read (everything up to the due time when the page was not full), never past a
      // recipient read without a final status and not asked (the cap, or locked), nor an unanswered request: neither
      // this page's nor an earlier page's of this sweep (`hold`). Written when something was read.
      const [f] = returned<{ hold: string | null; floor: string }>(
        await m.query(
          `WITH f AS (SELECT CASE WHEN $2 THEN 'infinity'::timestamptz ELSE least($3::timestamptz, $4::timestamptz, $5::timestamptz) END AS x, least($4::timestamptz, $5::timestamptz) AS hold),
                u AS (UPDATE campaigns.run r SET status_floor = f.x FROM f WHERE $6 AND r.campaign_id = $1 AND r.status_floor IS DISTINCT FROM f.x RETURNING r.status_floor)
           SELECT f.hold::text AS hold, coalesce((SELECT status_floor FROM u), $7::timestamptz)::text AS floor FROM f`,
          [campaignId, end, p.next, p.hold, left >= 0 ? keys[left] : null, p.n > 0 || end, run.floor],
        ),
      );
      if (rows.length) {
        emit(CampaignStatusesRequestedV1, { requestId: randomUUID(), accountId: run.account, campaignId, messageUuids: rows.map((r) => r.uuid) }, run.account);
        this.stats.requests++;
        this.log.log(`asked dispatch for the statuses of ${rows.length} recipients of campaign ${campaignId} without a final status ${Math.round(this.o.statuses.afterMs / 1000)} s after their request`);
      }
      // another page: recipients left to ask beyond the cap (from the first of them), or the page was full (after it);
      // never the same place again without asking anyone (a locked recipient stays locked)
      const again = pending.length > cap ? keys[cap] : p.n >= scan ? p.next : undefined;
      if (!again || (!rows.length && again === from)) return { asked: rows.length };
      return { asked: rows.length, next: { from: again, hold: f.hold, floor: f.floor } };
    });
  }
}

/** Where a sweep's next page of a campaign starts, what holds the floor back, and the floor the last page left. */
interface Cursor {
  from: string;
  hold: string | null;
  floor: string;
}
