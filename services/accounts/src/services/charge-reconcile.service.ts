import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  CHARGE_RECONCILE_WINDOWS_MAX,
  ChargesListedV1,
  ChargesListRequestedV1,
  ChargesReconcileRequestedV1,
  ChargesSummedV1,
  Topics,
  type EventData,
  type EventEnvelope,
  type MessageChargedV1,
  type MessageRefundDueV1,
} from '@switchboard/contracts';
import { counter, EventBus, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { ACCOUNTS_OPTIONS, type ResolvedAccountsOptions } from '../accounts.options';
import { AccountsUnitOfWork, type Emit, type Notify } from './accounts-events.service';
import { BalanceService } from './balance.service';

/** The group that reads streams' answers (only their two types of the streams topic). Frozen. */
export const CHARGE_RECONCILE_GROUP = 'accounts.charge-reconcile';

/** docs/decisions/0114. */
export const ChargeReconcileMetrics = {
  windows: () =>
    counter(
      'switchboard_accounts_charge_reconcile_windows_total',
      "Windows of acceptance time compared with streams: matched (sums as verified), mismatched (to be listed: new, or sums changed), reconciled (listed to the end), recovered (the listing booked charges or refunds), ignored (an answer to no open question)",
      ['outcome'],
    ),
  charges: () =>
    counter(
      'switchboard_accounts_charge_reconcile_charges_total',
      'Messages of listed windows: present (the ledger had the charge), charge_booked and refund_booked (the ledger never got them: booked by reconciliation)',
      ['outcome'],
    ),
  passFailures: () => counter('switchboard_accounts_charge_reconcile_pass_failures_total', 'Reconciliation passes that failed (database or bus unavailable); the next pass retries'),
};

type LedgerItem = { charge: EventData<typeof MessageChargedV1> } | { refund: EventData<typeof MessageRefundDueV1> };

interface WindowRow {
  window_start: Date;
  window_ms: number;
  seen_count: number;
  seen_price_micros: string;
  seen_refunded_micros: string;
}

const iso = (d: Date): string => d.toISOString();

/**
 * Accounts' side of the reconciliation of charges with streams (docs/decisions/0114). Streams owns every message's
 * price and refund; the ledger takes each charge and refund once, by its source key, when its event comes, and an
 * event skipped by a broker's retention or an offset reset never comes again. So, every `intervalMs`, in processes
 * with the schedulers role:
 *
 * 1. each account's closed windows of acceptance time (`windowMs` long, ended `afterMs` ago) not asked about yet are
 *    asked for their sums (`accounts.charges.reconcile_requested`); the answer (`streams.charges.summed`) records the
 *    windows with messages: a window whose sums are those its last listing verified is matched, any other (new, or
 *    changed by a late refund) is to be listed;
 * 2. a window to be listed is asked for its messages, a page of `batch` at a time by keyset
 *    (`accounts.charges.list_requested`, answered by `streams.charges.listed`); each page's messages whose charge, or
 *    whose refund, the ledger lacks are booked through the ledger's batched path (`BalanceService.recordMany`): its
 *    unique source key takes each once, so a late event, a repeated answer or two replicas book nothing twice;
 * 3. a verified window is summed again at doubling ages (`afterMs`, then its age) until it is `recheckWithinMs` old.
 *
 * The ledger keeps no acceptance time, so a window is verified by its rows the first time and by its sums after.
 * Each question carries a request id, kept on the row it is about; an answer to no open question (repeated, lost and
 * asked again, or another account's) does nothing, and an answer whose envelope is not its data's account is
 * dropped. A pass that fails is logged and counted, and the next one takes the same work; an answer that meets an
 * outage throws, and the bus retries it (never dead-lettered).
 */
@Injectable()
export class ChargeReconciler implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('AccountsChargeReconcile');
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  /** Totals of this process, for tests and benchmarks. */
  readonly stats = { passes: 0, failedPasses: 0, sumsAsked: 0, pagesAsked: 0, chargesBooked: 0, refundsBooked: 0, ignored: 0 };

  constructor(
    @Inject(ACCOUNTS_OPTIONS) private readonly o: ResolvedAccountsOptions,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly uow: AccountsUnitOfWork,
    private readonly balances: BalanceService,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({
      group: CHARGE_RECONCILE_GROUP,
      topics: [Topics.Accounts],
      types: [ChargesSummedV1.type, ChargesListedV1.type],
      handler: (e) => this.onAnswer(e),
    });
  }

  onApplicationBootstrap(): void {
    if (!this.roles.schedulers) return;
    const { intervalMs } = this.o.chargeReconcile;
    this.timer = setInterval(() => {
      this.running ??= this.passOnce()
        .catch((e: unknown) => {
          this.stats.failedPasses++;
          ChargeReconcileMetrics.passFailures().inc();
          this.log.warn(`charge reconciliation pass failed, retried in ${intervalMs} ms: ${(e as Error).message}`);
        })
        .finally(() => (this.running = undefined));
    }, intervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One pass: new windows summed, verified windows summed again, windows to list asked for their next page. */
  async passOnce(now = new Date()): Promise<{ sums: number; rechecks: number; pages: number }> {
    const c = this.o.chargeReconcile;
    const windowMs = c.windowMs;
    const closedEnd = new Date(Math.floor((now.getTime() - c.afterMs) / windowMs) * windowMs);
    const staleAsk = new Date(now.getTime() - c.afterMs);
    const sums = await this.uow.run(async (m, emit) => {
      // every account has a row, from the window before its creation (it has no message before)
      await m.query(
        `INSERT INTO accounts.charge_reconcile (account_id, swept_to)
         SELECT c.id, date_bin($1::int * interval '1 millisecond', c.created_at, timestamptz 'epoch') - $1::int * interval '1 millisecond'
           FROM accounts.customer c
          WHERE NOT EXISTS (SELECT 1 FROM accounts.charge_reconcile r WHERE r.account_id = c.id)
         ON CONFLICT (account_id) DO NOTHING`,
        [windowMs],
      );
      const due = (await m.query(
        `SELECT account_id::text AS account_id, swept_to FROM accounts.charge_reconcile
          WHERE swept_to < $1 AND (request_id IS NULL OR asked_at <= $2)
          ORDER BY swept_to LIMIT $3 FOR UPDATE SKIP LOCKED`,
        [closedEnd, staleAsk, c.requestsPerPass],
      )) as Array<{ account_id: string; swept_to: Date }>;
      for (const d of due) await this.askSums(m, emit, d.account_id, d.swept_to, closedEnd, now);
      return due.length;
    });
    const rechecks = await this.uow.run(async (m, emit) => {
      const due = (await m.query(
        `SELECT account_id::text AS account_id, window_start FROM accounts.charge_reconcile_window
          WHERE state = 'reconciled' AND next_check_at <= $1 AND window_ms = $2
          ORDER BY next_check_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
        [now, windowMs, c.requestsPerPass * CHARGE_RECONCILE_WINDOWS_MAX],
      )) as Array<{ account_id: string; window_start: Date }>;
      const byAccount = new Map<string, Date[]>();
      for (const d of due) byAccount.set(d.account_id, [...(byAccount.get(d.account_id) ?? []), d.window_start]);
      let asked = 0;
      for (const [accountId, starts] of byAccount) {
        for (let i = 0; i < starts.length && asked < c.requestsPerPass; i += CHARGE_RECONCILE_WINDOWS_MAX, asked++) {
          const chunk = starts.slice(i, i + CHARGE_RECONCILE_WINDOWS_MAX);
          const requestId = randomUUID();
          // asked again after afterMs if the answer is lost
          await m.query(
            `UPDATE accounts.charge_reconcile_window SET request_id = $3, next_check_at = $4 WHERE account_id = $1 AND window_start = ANY($2::timestamptz[])`,
            [accountId, chunk, requestId, new Date(now.getTime() + c.afterMs)],
          );
          const ranges = chunk.map((s) => ({ from: iso(s), to: iso(new Date(s.getTime() + windowMs)) }));
          emit(ChargesReconcileRequestedV1, { requestId, accountId, windowMs, ranges }, accountId);
        }
      }
      return asked;
    });
    const pages = await this.uow.run(async (m, emit) => {
      const open = (await m.query(
        `SELECT account_id::text AS account_id, window_start, window_ms, after_at, after_uuid::text AS after_uuid FROM accounts.charge_reconcile_window
          WHERE state <> 'reconciled' AND (asked_at IS NULL OR asked_at <= $1)
          ORDER BY window_start LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [staleAsk, c.requestsPerPass],
      )) as Array<{ account_id: string; window_start: Date; window_ms: number; after_at: string | null; after_uuid: string | null }>;
      for (const w of open) {
        await this.askPage(m, emit, w.account_id, w.window_start, w.window_ms, w.after_at && w.after_uuid ? { at: w.after_at, uuid: w.after_uuid } : null, now);
      }
      return open.length;
    });
    this.stats.passes++;
    this.stats.sumsAsked += sums + rechecks;
    this.stats.pagesAsked += pages;
    if (sums + rechecks + pages) this.log.debug(`charge reconciliation: ${sums} accounts' new windows and ${rechecks} re-checks summed, ${pages} pages asked`);
    return { sums, rechecks, pages };
  }

  private async askSums(m: EntityManager, emit: Emit, accountId: string, from: Date, closedEnd: Date, now: Date): Promise<void> {
    const { windowMs } = this.o.chargeReconcile;
    const to = new Date(Math.min(closedEnd.getTime(), from.getTime() + CHARGE_RECONCILE_WINDOWS_MAX * windowMs));
    const requestId = randomUUID();
    await m.query(`UPDATE accounts.charge_reconcile SET request_id = $2, asked_at = $3, updated_at = now() WHERE account_id = $1`, [accountId, requestId, now]);
    emit(ChargesReconcileRequestedV1, { requestId, accountId, windowMs, ranges: [{ from: iso(from), to: iso(to) }] }, accountId);
  }

  private async askPage(m: EntityManager, emit: Emit, accountId: string, start: Date, windowMs: number, after: { at: string; uuid: string } | null, now: Date): Promise<void> {
    const requestId = randomUUID();
    await m.query(`UPDATE accounts.charge_reconcile_window SET state = 'listing', request_id = $3, asked_at = $4 WHERE account_id = $1 AND window_start = $2`, [accountId, start, requestId, now]);
    emit(
      ChargesListRequestedV1,
      { requestId, accountId, from: iso(start), to: iso(new Date(start.getTime() + windowMs)), after, limit: this.o.chargeReconcile.batch },
      accountId,
    );
  }

  async onAnswer(e: EventEnvelope): Promise<void> {
    if (e.type === ChargesSummedV1.type && e.version === 1) return this.onSummed(e, ChargesSummedV1.schema.parse(e.data));
    if (e.type === ChargesListedV1.type && e.version === 1) return this.onListed(e, ChargesListedV1.schema.parse(e.data));
  }

  private foreign(e: EventEnvelope, accountId: string): boolean {
    if (e.accountId === accountId) return false;
    this.ignored(`answer ${e.id} names account ${accountId} under envelope account ${String(e.accountId)}`);
    return true;
  }

  private ignored(why: string): void {
    this.stats.ignored++;
    ChargeReconcileMetrics.windows().inc({ outcome: 'ignored' });
    this.log.warn(`charge reconciliation: ${why}: ignored`);
  }

  /** The next check of a window verified now: after afterMs, then at doubling ages, none once recheckWithinMs old. */
  private static readonly NEXT_CHECK = `CASE WHEN w.window_start + w.window_ms * interval '1 millisecond' < $NOW::timestamptz - $WITHIN::int8 * interval '1 millisecond' THEN NULL
      ELSE $NOW::timestamptz + greatest($AFTER::int8 * interval '1 millisecond', $NOW::timestamptz - (w.window_start + w.window_ms * interval '1 millisecond')) END`;

  private nextCheck(now: number, after: number, within: number): string {
    return ChargeReconciler.NEXT_CHECK.replaceAll('$NOW', `$${now}`).replaceAll('$AFTER', `$${after}`).replaceAll('$WITHIN', `$${within}`);
  }

  async onSummed(e: EventEnvelope, d: EventData<typeof ChargesSummedV1>): Promise<void> {
    if (this.foreign(e, d.accountId)) return;
    const c = this.o.chargeReconcile;
    const now = new Date();
    const out = { matched: 0, mismatched: 0, open: false };
    await this.uow.run(async (m, emit) => {
      out.matched = out.mismatched = 0;
      const end = d.ranges.reduce((x, r) => (r.to > x ? r.to : x), d.ranges[0]?.to ?? '');
      const swept = (await m.query(
        `UPDATE accounts.charge_reconcile SET swept_to = greatest(swept_to, $3::timestamptz), request_id = NULL, asked_at = NULL, updated_at = now()
          WHERE account_id = $1 AND request_id = $2 RETURNING swept_to`,
        [d.accountId, d.requestId, end || now],
      )) as [Array<{ swept_to: Date }>, number];
      const rechecked = (await m.query(
        `UPDATE accounts.charge_reconcile_window SET request_id = NULL WHERE account_id = $1 AND request_id = $2 AND state = 'reconciled' RETURNING window_start`,
        [d.accountId, d.requestId],
      )) as [unknown[], number];
      if (swept[0].length === 0 && rechecked[0].length === 0) {
        out.open = true;
        return;
      }
      if (d.windowMs !== c.windowMs) throw new Error(`charge reconciliation: answer ${e.id} in windows of ${d.windowMs} ms, not ${c.windowMs}`);
      if (d.windows.length) {
        const rows = (await m.query(
          `INSERT INTO accounts.charge_reconcile_window AS w (account_id, window_start, window_ms, state, count, price_micros, refunded_micros, checked_at)
           SELECT $1, t.f, $2, 'pending', t.n, t.p, t.r, $7 FROM unnest($3::timestamptz[], $4::int[], $5::bigint[], $6::bigint[]) AS t(f, n, p, r)
           ON CONFLICT (account_id, window_start) DO UPDATE SET
             count = EXCLUDED.count, price_micros = EXCLUDED.price_micros, refunded_micros = EXCLUDED.refunded_micros, checked_at = EXCLUDED.checked_at,
             state = CASE WHEN w.state = 'listing' THEN 'listing'
                          WHEN (w.verified_count, w.verified_price_micros, w.verified_refunded_micros) = (EXCLUDED.count, EXCLUDED.price_micros, EXCLUDED.refunded_micros) THEN 'reconciled'
                          ELSE 'pending' END,
             next_check_at = CASE WHEN w.state <> 'listing'
                                   AND (w.verified_count, w.verified_price_micros, w.verified_refunded_micros) = (EXCLUDED.count, EXCLUDED.price_micros, EXCLUDED.refunded_micros)
                                  THEN ${this.nextCheck(7, 8, 9)} END,
             asked_at = CASE WHEN w.state = 'listing' THEN w.asked_at END
           RETURNING state`,
          [d.accountId, d.windowMs, d.windows.map((w) => w.from), d.windows.map((w) => w.count), d.windows.map((w) => String(w.priceMicros)), d.windows.map((w) => String(w.refundedMicros)), now, c.afterMs, c.recheckWithinMs],
        )) as Array<{ state: string }>;
        for (const r of rows) {
          if (r.state === 'reconciled') out.matched++;
          else out.mismatched++;
        }
      }
      // a re-checked window streams now answers nothing for is a window whose messages are gone: listed again
      if (rechecked[0].length) {
        const seen = new Set(d.windows.map((w) => new Date(w.from).getTime()));
        const gone = (rechecked[0] as Array<{ window_start: Date }>).map((r) => r.window_start).filter((s) => !seen.has(s.getTime()));
        if (gone.length) {
          await m.query(
            `UPDATE accounts.charge_reconcile_window SET state = 'pending', count = 0, price_micros = 0, refunded_micros = 0, checked_at = $3, next_check_at = NULL, asked_at = NULL
              WHERE account_id = $1 AND window_start = ANY($2::timestamptz[])`,
            [d.accountId, gone, now],
          );
          out.mismatched += gone.length;
        }
      }
      // a long history is summed a range after another, without waiting for the next pass
      const sweptTo = swept[0][0]?.swept_to;
      const closedEnd = new Date(Math.floor((now.getTime() - c.afterMs) / c.windowMs) * c.windowMs);
      if (sweptTo && sweptTo < closedEnd) await this.askSums(m, emit, d.accountId, sweptTo, closedEnd, now);
    });
    if (out.open) return this.ignored(`sums ${d.requestId} of account ${d.accountId} answer no open question`);
    if (out.matched) ChargeReconcileMetrics.windows().inc({ outcome: 'matched' }, out.matched);
    if (out.mismatched) ChargeReconcileMetrics.windows().inc({ outcome: 'mismatched' }, out.mismatched);
  }

  async onListed(e: EventEnvelope, d: EventData<typeof ChargesListedV1>): Promise<void> {
    if (this.foreign(e, d.accountId)) return;
    const c = this.o.chargeReconcile;
    const now = new Date();
    const out = { open: false, charges: 0, refunds: 0, present: 0, done: false, windowBooked: 0 };
    await this.uow.run(async (m, emit, notify) => {
      Object.assign(out, { open: false, charges: 0, refunds: 0, present: 0, done: false, windowBooked: 0 });
      const [w] = (await m.query(
        `SELECT window_start, window_ms, seen_count, seen_price_micros::text AS seen_price_micros, seen_refunded_micros::text AS seen_refunded_micros
           FROM accounts.charge_reconcile_window WHERE account_id = $1 AND request_id = $2 AND state = 'listing' FOR UPDATE`,
        [d.accountId, d.requestId],
      )) as WindowRow[];
      if (!w || w.window_start.getTime() !== new Date(d.from).getTime()) {
        out.open = true;
        return;
      }
      const booked = await this.bookMissing(m, notify, d);
      out.charges = booked.charges;
      out.refunds = booked.refunds;
      out.present = d.rows.length - booked.chargesMissing;
      const count = w.seen_count + d.rows.length;
      const price = BigInt(w.seen_price_micros) + d.rows.reduce((s, r) => s + BigInt(r.priceMicros), 0n);
      const refunded = BigInt(w.seen_refunded_micros) + d.rows.reduce((s, r) => s + BigInt(r.refundedMicros), 0n);
      const common = [d.accountId, w.window_start, booked.charges, booked.refunds, String(booked.micros)];
      if (d.next) {
        const requestId = randomUUID();
        await m.query(
          `UPDATE accounts.charge_reconcile_window
              SET seen_count = $6, seen_price_micros = $7, seen_refunded_micros = $8, after_at = $9, after_uuid = $10, request_id = $11, asked_at = $12,
                  charges_booked = charges_booked + $3, refunds_booked = refunds_booked + $4, booked_micros = booked_micros + $5::bigint
            WHERE account_id = $1 AND window_start = $2`,
          [...common, count, String(price), String(refunded), d.next.at, d.next.uuid, requestId, now],
        );
        emit(ChargesListRequestedV1, { requestId, accountId: d.accountId, from: d.from, to: d.to, after: d.next, limit: c.batch }, d.accountId);
        return;
      }
      // the window's last page: what the listing saw is what is verified, and what the next sums must match
      const [fin] = (await m.query(
        `UPDATE accounts.charge_reconcile_window w
            SET state = 'reconciled', verified_count = $6, verified_price_micros = $7, verified_refunded_micros = $8,
                count = $6, price_micros = $7, refunded_micros = $8, seen_count = 0, seen_price_micros = 0, seen_refunded_micros = 0,
                after_at = NULL, after_uuid = NULL, request_id = NULL, asked_at = NULL, checked_at = $9, reconciled_at = $9,
                charges_booked = charges_booked + $3, refunds_booked = refunds_booked + $4, booked_micros = booked_micros + $5::bigint,
                next_check_at = ${this.nextCheck(9, 10, 11)}
          WHERE account_id = $1 AND window_start = $2
          RETURNING charges_booked + refunds_booked AS booked`,
        [...common, count, String(price), String(refunded), now, c.afterMs, c.recheckWithinMs],
      )) as [Array<{ booked: number }>, number];
      out.done = true;
      out.windowBooked = fin[0]?.booked ?? 0;
    });
    if (out.open) return this.ignored(`page ${d.requestId} of account ${d.accountId} answers no open question`);
    if (out.present) ChargeReconcileMetrics.charges().inc({ outcome: 'present' }, out.present);
    if (out.charges) ChargeReconcileMetrics.charges().inc({ outcome: 'charge_booked' }, out.charges);
    if (out.refunds) ChargeReconcileMetrics.charges().inc({ outcome: 'refund_booked' }, out.refunds);
    this.stats.chargesBooked += out.charges;
    this.stats.refundsBooked += out.refunds;
    if (out.charges || out.refunds) {
      this.log.warn(`account ${d.accountId}: booked ${out.charges} charges and ${out.refunds} refunds the ledger never got, of messages accepted from ${d.from} to ${d.to} (request ${d.requestId})`);
    }
    if (out.done) {
      ChargeReconcileMetrics.windows().inc({ outcome: 'reconciled' });
      if (out.windowBooked) ChargeReconcileMetrics.windows().inc({ outcome: 'recovered' });
    }
  }

  /**
   * The page's messages whose charge or refund the ledger lacks, booked through its batched path (charges first, so a
   * refund's running balance follows its charge). One indexed read finds what the ledger has; the rest go to
   * `recordMany`, whose unique source key skips any an event booked meanwhile.
   */
  private async bookMissing(m: EntityManager, notify: Notify, d: EventData<typeof ChargesListedV1>): Promise<{ charges: number; refunds: number; chargesMissing: number; micros: bigint }> {
    if (d.rows.length === 0) return { charges: 0, refunds: 0, chargesMissing: 0, micros: 0n };
    const have = (await m.query(
      `SELECT kind, source_id FROM accounts.balance_entry WHERE account_id = $1 AND kind IN ('charge', 'refund') AND source_id = ANY($2::text[])`,
      [d.accountId, d.rows.map((r) => r.messageUuid)],
    )) as Array<{ kind: string; source_id: string }>;
    const charged = new Set(have.filter((h) => h.kind === 'charge').map((h) => h.source_id));
    const refunded = new Set(have.filter((h) => h.kind === 'refund').map((h) => h.source_id));
    const charges: LedgerItem[] = d.rows
      .filter((r) => !charged.has(r.messageUuid))
      .map((r) => ({ charge: { messageUuid: r.messageUuid, accountId: d.accountId, amountMicros: r.priceMicros, currency: r.currency, balanceAfterMicros: 0 } }));
    const refunds: LedgerItem[] = d.rows
      .filter((r) => r.refundedMicros > 0 && !refunded.has(r.messageUuid))
      .map((r) => ({ refund: { messageUuid: r.messageUuid, accountId: d.accountId, amountMicros: r.refundedMicros, currency: r.currency, reason: 'refund reconciled' } }));
    const nCharges = charges.length ? await this.balances.recordMany(m, notify, charges) : 0;
    const nRefunds = refunds.length ? await this.balances.recordMany(m, notify, refunds) : 0;
    // what the booked entries moved: the sums of those actually inserted are not returned, so the candidates' (equal unless an event raced them)
    const micros = charges.reduce((s, i) => s - ('charge' in i ? BigInt(i.charge.amountMicros) : 0n), 0n) + refunds.reduce((s, i) => s + ('refund' in i ? BigInt(i.refund.amountMicros) : 0n), 0n);
    return { charges: nCharges, refunds: nRefunds, chargesMissing: charges.length, micros: nCharges + nRefunds ? micros : 0n };
  }
}
