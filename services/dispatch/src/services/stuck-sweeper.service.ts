import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { DISPATCH_CONNECTION, DISPATCH_OPTIONS, type ResolvedDispatchOptions } from '../dispatch.options';
import type { EventRow } from '../repositories/message.repository';
import { rowsOf } from '../repositories/rows';
import { addToOutbox, DispatchOutboxRelay, lifecycleEvents } from './events.service';

/** `DispatchModuleOptions.stuck`: when a message counts as stuck, and what is done about it. */
export interface StuckSweepOptions {
  /**
   * A message `submitting` (claimed, handed to an adapter) with no outcome for this long, though its dispatcher is
   * alive, is resumed: queued again, flagged possible_duplicate (the provider may have it), under a new attempt id
   * (a late outcome of the old attempt is then ignored). Default 10 minutes.
   */
  resumeAfterMs?: number;
  /**
   * A message still queued, due for at least `resumeAfterMs` and untouched (never claimed, deferred or retried) for
   * this long, is failed: `sent_failed` with error `STUCK: ...` and a refund (none when possible_duplicate: it may
   * have been sent). Default 24 hours.
   */
  failAfterMs?: number;
  /** How often the sweep runs (processes with the schedulers role). Default 60 000 ms. */
  intervalMs?: number;
  /** Messages resumed or failed per statement, at most. Default 1000. */
  batch?: number;
}

const SOURCE_COLS = `m.id, m.uuid, m.account_id, m.stream_id, m.stream_uid, m.campaign_id, m.sender, m.destination, m.status,
  m.outgoing_status, m.error, m.vendor_id, m.provider_ids[1] AS provider_id, to_char(m.sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS sent_at,
  to_char(m.delivered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS delivered_at, m.mcc, m.mnc, m.network,
  char_length(m.body) AS body_length, m.segments, m.parts, m.encoding, m.price_micros, m.currency, m.possible_duplicate`;

/**
 * Finds messages stuck in a non-final status past a limit and resumes them or fails them with a refund, each exactly
 * once: every change is one conditional UPDATE over rows taken `FOR UPDATE SKIP LOCKED` (two replicas sweeping at
 * once take disjoint rows; a row the pump claims meanwhile is no longer `queued` and is left alone), and a failed
 * message's events (status, EDR, refund) are written to the outbox in the same transaction as its status.
 *
 * What it does not cover, because others do: claims of a dead dispatcher (Dispatcher.recover), sent messages whose
 * receipt never came (Dispatcher.expire, `receiptTimeoutMs`), accepted events not yet ingested (the bus retries them
 * through any outage and keeps the failures in the dead-letter store).
 */
@Injectable()
export class StuckMessageSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(StuckMessageSweeper.name);
  private readonly resumeAfterMs: number;
  private readonly failAfterMs: number;
  private readonly intervalMs: number;
  private readonly batch: number;
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<unknown>;
  /** Totals of this process, for health and benchmarks. */
  readonly stats = { resumed: 0, failed: 0 };

  constructor(
    @InjectDataSource(DISPATCH_CONNECTION) private readonly ds: DataSource,
    @Inject(DISPATCH_OPTIONS) options: ResolvedDispatchOptions,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly relay: DispatchOutboxRelay,
  ) {
    const s = options.stuck ?? {};
    this.resumeAfterMs = s.resumeAfterMs ?? 10 * 60_000;
    this.failAfterMs = s.failAfterMs ?? 24 * 3600_000;
    this.intervalMs = s.intervalMs ?? 60_000;
    this.batch = Math.max(1, s.batch ?? 1000);
  }

  onApplicationBootstrap(): void {
    if (!this.roles.schedulers) return;
    this.timer = setInterval(() => {
      if (this.sweeping) return;
      this.sweeping = this.sweepOnce()
        .catch((e: unknown) => this.log.warn(`stuck-message sweep failed: ${String(e)}`))
        .finally(() => (this.sweeping = undefined));
    }, this.intervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** One sweep: resumes, then fails, a batch at a time until none is left. Returns what this call changed. */
  async sweepOnce(): Promise<{ resumed: number; failed: number }> {
    const done = { resumed: 0, failed: 0 };
    await this.dropDoneClaims();
    await this.dropLeftAwaiting();
    for (let n = this.batch; n === this.batch; ) {
      n = await this.resume();
      done.resumed += n;
    }
    for (let n = this.batch; n === this.batch; ) {
      n = await this.fail();
      done.failed += n;
    }
    this.stats.resumed += done.resumed;
    this.stats.failed += done.failed;
    if (done.resumed) this.log.warn(`${done.resumed} message(s) stuck submitting for over ${this.resumeAfterMs} ms were queued again, flagged possible_duplicate`);
    if (done.failed) this.log.warn(`${done.failed} message(s) stuck queued for over ${this.failAfterMs} ms were failed and refunded`);
    return done;
  }

  /**
   * Claim rows whose message is `done` (0206): a receipt may finalize a message claimed concurrently, in a statement
   * that could not see the new claim row. `done` is final (nothing claims such a message again), so removing them
   * races with nothing; a message still moving keeps its row.
   */
  private async dropDoneClaims(): Promise<void> {
    await this.ds.query(
      `DELETE FROM dispatch.message_claim c WHERE coalesce((SELECT m.send_state FROM dispatch.message m WHERE m.id = c.message_id), 'done') = 'done'`,
    );
  }

  /**
   * Receipt-wait rows (0212) whose message is no longer `submitted`: a receipt that finalized a message while its
   * `markSent` was committing could not see the row that statement wrote. A visible row's message was `submitted` when
   * the row was written and never goes back there once past it, so removing these races with nothing; the readers
   * ignore them meanwhile (they join messages still `submitted`).
   */
  private async dropLeftAwaiting(): Promise<void> {
    await this.ds.query(
      `DELETE FROM dispatch.message_awaiting w WHERE coalesce((SELECT m.send_state FROM dispatch.message m WHERE m.id = w.message_id), 'done') <> 'submitted'`,
    );
  }

  private async resume(): Promise<number> {
    const rows = rowsOf<{ id: string }>(
      await this.ds.query(
        `WITH upd AS (
         UPDATE dispatch.message m
            SET send_state = 'queued', queue_state = 'queued', claimed_by = NULL, attempt_id = NULL, possible_duplicate = true, next_attempt_at = now(), updated_at = now(),
                error = coalesce(m.error, 'STUCK: no outcome from the provider adapter, sent again')
          WHERE m.id IN (SELECT s.id FROM dispatch.message s WHERE s.id = ANY(ARRAY(SELECT c.message_id FROM dispatch.message_claim c))
                            AND s.status = 'accepted' AND s.send_state = 'submitting' AND s.updated_at < now() - $1 * interval '1 millisecond'
                          ORDER BY s.id LIMIT $2 FOR UPDATE SKIP LOCKED)
            AND m.status = 'accepted' AND m.send_state = 'submitting'
          RETURNING m.id
         ), unclaimed AS (DELETE FROM dispatch.message_claim k WHERE k.message_id = ANY(ARRAY(SELECT id FROM upd)))
         SELECT id FROM upd`,
        [this.resumeAfterMs, this.batch],
      ),
    );
    return rows.length;
  }

  private async fail(): Promise<number> {
    const n = await this.ds.transaction(async (m) => {
      const rows = rowsOf<EventRow>(
        await m.query(
          `UPDATE dispatch.message m
              SET status = 'sent_failed', outgoing_status = 'failed', send_state = 'done', queue_state = NULL, claimed_by = NULL, final_at = now(), updated_at = now(),
                  error = 'STUCK: not sent within ' || ($1::bigint / 60000) || ' minutes'
            WHERE m.id IN (SELECT id FROM dispatch.message
                            WHERE status = 'accepted' AND queue_state = 'queued'
                              AND updated_at < now() - $1 * interval '1 millisecond' AND next_attempt_at < now() - $2 * interval '1 millisecond'
                            ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)
              AND m.status = 'accepted' AND m.send_state = 'queued'
            RETURNING ${SOURCE_COLS}`,
          [this.failAfterMs, this.resumeAfterMs, this.batch],
        ),
      );
      if (rows.length === 0) return 0;
      await addToOutbox(m, lifecycleEvents(rows, { final: true, refundReason: (r) => (r.possible_duplicate ? null : 'stuck') }), this.relay.statusBatches, this.relay.compactRows);
      return rows.length;
    });
    if (n > 0) this.relay.kick();
    return n;
  }
}
