import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  CHARGE_RECONCILE_WINDOWS_MAX,
  ChargesListedV1,
  ChargesListRequestedV1,
  ChargesReconcileRequestedV1,
  ChargesSummedV1,
  Topics,
  type EventData,
  type EventEnvelope,
} from '@switchboard/contracts';
import { createEnvelope, EventBus, Outbox, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { STREAMS_CONNECTION, STREAMS_SCHEMA } from '../streams.options';
import { StreamsOutboxRelay } from '../services/streams-events.service';

/** The group that answers accounts' questions about charges; it reads only the accounts topic's two question types. */
export const CHARGE_RECONCILE_GROUP = 'streams.charge-reconcile';

type Range = { from: string; to: string };

/** Acceptance times to the microsecond, in UTC: a keyset position must not lose the digits PostgreSQL keeps. */
const AT = `to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * Streams answers accounts' reconciliation of charges (docs/decisions/0114): the sums of an account's messages per
 * window of acceptance time, and a window's messages a page at a time (keyset on acceptance time and uuid), both from
 * the covering index `message_account_charges_idx` (index-only). Streams owns every message's price and refund; it
 * answers only about the question's account, and drops a question whose envelope is another account's. A question
 * whose ranges cover more than CHARGE_RECONCILE_WINDOWS_MAX windows is refused before any work. Answers go through the
 * outbox; an outage fails the handler and the bus retries it (nothing is dead-lettered for it).
 */
@Injectable()
export class ChargeReconcileResponder implements OnModuleInit {
  private readonly log = new Logger('StreamsChargeReconcile');

  constructor(
    @InjectDataSource(STREAMS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly relay: StreamsOutboxRelay,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({
      group: CHARGE_RECONCILE_GROUP,
      topics: [Topics.Accounts],
      types: [ChargesReconcileRequestedV1.type, ChargesListRequestedV1.type],
      handler: (e) => this.onQuestion(e),
    });
  }

  async onQuestion(e: EventEnvelope): Promise<void> {
    if (e.type === ChargesReconcileRequestedV1.type && e.version === 1) return this.answerSums(e, ChargesReconcileRequestedV1.schema.parse(e.data));
    if (e.type === ChargesListRequestedV1.type && e.version === 1) return this.answerList(e, ChargesListRequestedV1.schema.parse(e.data));
  }

  private foreign(e: EventEnvelope, accountId: string): boolean {
    if (e.accountId === accountId) return false;
    this.log.error(`charge question ${e.id} names account ${accountId} under envelope account ${String(e.accountId)}: ignored`);
    return true;
  }

  /**
   * The non-empty windows of the ranges with their count, prices and refunds: one index-only range scan per window (a
   * GROUP BY over the day's rows sorted them, 33 MB on disk for a million; bench/accounts-charge-reconcile.ts).
   */
  async answerSums(e: EventEnvelope, d: EventData<typeof ChargesReconcileRequestedV1>): Promise<void> {
    if (this.foreign(e, d.accountId)) return;
    const ranges = d.ranges.map((r) => ({ from: new Date(r.from), to: new Date(r.to) }));
    const span = ranges.reduce((n, r) => n + Math.max(0, r.to.getTime() - r.from.getTime()), 0);
    if (span > CHARGE_RECONCILE_WINDOWS_MAX * d.windowMs || ranges.some((r) => r.to <= r.from)) {
      this.log.error(`charge question ${e.id} of account ${d.accountId}: ranges of ${span} ms over ${CHARGE_RECONCILE_WINDOWS_MAX} windows of ${d.windowMs} ms, or empty: ignored`);
      return;
    }
    await this.ds.transaction(async (m) => {
      const rows = (await m.query(
        `SELECT to_char(w.s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "from", x.n::int AS count, x.price::text AS price, x.refunded::text AS refunded
           FROM unnest($3::timestamptz[], $4::timestamptz[]) AS r(f, t)
          CROSS JOIN LATERAL generate_series(date_bin($2::int * interval '1 millisecond', r.f, timestamptz 'epoch'), r.t - interval '1 microsecond', $2::int * interval '1 millisecond') AS w(s)
          CROSS JOIN LATERAL (SELECT count(*) AS n, sum(m.price_micros) AS price, sum(m.refunded_micros) AS refunded FROM streams.message m
                               WHERE m.account_id = $1 AND m.created_at >= greatest(w.s, r.f) AND m.created_at < least(w.s + $2::int * interval '1 millisecond', r.t)) x
          WHERE x.n > 0
          ORDER BY w.s`,
        [d.accountId, d.windowMs, ranges.map((r) => r.from), ranges.map((r) => r.to)],
      )) as Array<{ from: string; count: number; price: string; refunded: string }>;
      const answer = createEnvelope(
        ChargesSummedV1,
        {
          requestId: d.requestId,
          accountId: d.accountId,
          windowMs: d.windowMs,
          ranges: d.ranges as Range[],
          windows: rows.map((r) => ({ from: r.from, count: r.count, priceMicros: Number(r.price), refundedMicros: Number(r.refunded) })),
        },
        { accountId: d.accountId, source: 'streams' },
      );
      await Outbox.add(m, STREAMS_SCHEMA, [answer]);
    });
    this.relay.kickSoon();
  }

  /** A page of the window's messages, in acceptance order (then uuid), after the keyset position. */
  async answerList(e: EventEnvelope, d: EventData<typeof ChargesListRequestedV1>): Promise<void> {
    if (this.foreign(e, d.accountId)) return;
    await this.ds.transaction(async (m) => {
      // ordered by the uuid column, not by its text below (the alias would win in ORDER BY)
      const cols = `m.uuid::text AS uuid, m.price_micros::text AS price, m.refunded_micros::text AS refunded, m.currency, ${AT} AS at`;
      const rows = (await (d.after
        ? m.query(
            `SELECT ${cols} FROM streams.message m
              WHERE m.account_id = $1 AND m.created_at >= $2 AND m.created_at < $3 AND (m.created_at, m.uuid) > ($4::timestamptz, $5::uuid)
              ORDER BY m.created_at, m.uuid LIMIT $6`,
            [d.accountId, d.from, d.to, d.after.at, d.after.uuid, d.limit + 1],
          )
        : m.query(`SELECT ${cols} FROM streams.message m WHERE m.account_id = $1 AND m.created_at >= $2 AND m.created_at < $3 ORDER BY m.created_at, m.uuid LIMIT $4`, [
            d.accountId,
            d.from,
            d.to,
            d.limit + 1,
          ]))) as Array<{ uuid: string; price: string; refunded: string; currency: string; at: string }>;
      const page = rows.slice(0, d.limit);
      const last = page[page.length - 1];
      const answer = createEnvelope(
        ChargesListedV1,
        {
          requestId: d.requestId,
          accountId: d.accountId,
          from: d.from,
          to: d.to,
          rows: page.map((r) => ({ messageUuid: r.uuid, priceMicros: Number(r.price), refundedMicros: Number(r.refunded), currency: r.currency })),
          next: rows.length > d.limit ? { at: last.at, uuid: last.uuid } : null,
        },
        { accountId: d.accountId, source: 'streams' },
      );
      await Outbox.add(m, STREAMS_SCHEMA, [answer]);
    });
    this.relay.kickSoon();
  }
}
